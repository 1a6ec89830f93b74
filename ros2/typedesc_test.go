package ros2

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/cdr"
	"github.com/actbridge/actbridge/config"
	"github.com/actbridge/actbridge/msgs/ros2"
	"github.com/actbridge/actbridge/ros2/msgdef"
	"github.com/actbridge/actbridge/ros2/node"
	"github.com/actbridge/actbridge/ros2/service"
	"github.com/actbridge/actbridge/sim/ros2face"
	"github.com/actbridge/actbridge/test/netns"
)

const (
	simSetLED  = "/simrobot/" + ros2face.ServiceSetLED
	typeSetLED = ros2face.TypeSetLED
)

// simSet is d's set with the sim's own interfaces: what the sim's node
// serves, for the hashes a test expects.
func simSet(t *testing.T, d msgs.Distro) *msgs.Set {
	t.Helper()
	set, err := msgs.Load(d)
	if err == nil {
		err = ros2face.AddInterfaces(set)
	}
	if err != nil {
		t.Fatal(err)
	}
	return set
}

// asJSON is v as JSON, for comparing responses (numbers come back as
// int64, uint64 or float64).
func asJSON(t *testing.T, v any) string {
	t.Helper()
	var b strings.Builder
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	if err := e.Encode(v); err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(b.String())
}

// A service of a type no distro set holds, whose request nests messages,
// is learned from its node's ~/get_type_description, proven against the
// hash its server announced, offered in ServiceTypes with the messages
// it nests, and called with a nested request that the sim acts on.
func TestServiceTypeOutsideTheSetIsLearnedFromItsNodeAndCalled(t *testing.T) {
	for i, d := range []msgs.Distro{msgs.Jazzy, msgs.Kilted} {
		t.Run(string(d), func(t *testing.T) {
			sim := startSim(t, d, 150+i)
			r := openOn(t, d, 150+i, config.DiscoveryLocalhost)
			ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
			defer cancel()
			providersOf(t, r, simSetLED)
			if slices.ContainsFunc(r.ServiceTypes(), func(s actuators.ServiceType) bool { return s.Name == typeSetLED }) {
				t.Fatal("SetLed offered before it was learned")
			}
			if _, err := r.CallService(ctx, simSetLED, "actbridge_sim_msgs/srv/NoSuch", nil, 5*time.Second); !errors.Is(err, actuators.ErrUnsupportedType) || !errors.Is(err, actuators.ErrServiceNotSent) {
				t.Fatalf("a call as another unknown type: %v", err)
			}
			typ, err := r.ServiceType(ctx, simSetLED)
			if err != nil || typ != typeSetLED {
				t.Fatalf("ServiceType %q %v\nsim:\n%s", typ, err, sim.Output())
			}
			want, err := simSet(t, d).TypeHash(typeSetLED)
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := r.access.learned.get(typeSetLED, want); !ok {
				t.Fatalf("not learned with hash %s", want)
			}
			types := r.ServiceTypes()
			j := slices.IndexFunc(types, func(s actuators.ServiceType) bool { return s.Name == typeSetLED })
			if j < 0 || !slices.IsSortedFunc(types, func(a, b actuators.ServiceType) int { return strings.Compare(a.Name, b.Name) }) {
				t.Fatalf("service types %+v", types)
			}
			st := types[j]
			for _, c := range []struct{ what, got, want string }{
				{"request", asJSON(t, st.Request), `[{"name":"led","type":"string"},{"name":"colors","type":"actbridge_sim_msgs/msg/LedColor[<=8]"},{"name":"blink_hz","type":"float32"}]`},
				{"response", asJSON(t, st.Response), `[{"name":"success","type":"bool"},{"name":"message","type":"string"},{"name":"previous","type":"actbridge_sim_msgs/msg/LedColor[]"}]`},
				{"messages", asJSON(t, st.Messages), `{"actbridge_sim_msgs/msg/LedColor":[{"name":"red","type":"uint8"},{"name":"green","type":"uint8"},{"name":"blue","type":"uint8"}]}`},
			} {
				if c.got != c.want {
					t.Errorf("%s %s, want %s", c.what, c.got, c.want)
				}
			}
			for _, c := range []struct {
				req      map[string]any
				success  bool
				previous string
			}{
				{map[string]any{"led": "status", "colors": []any{map[string]any{"red": 255}, map[string]any{"green": 128, "blue": 1}}, "blink_hz": 2}, true, `[]`},
				{map[string]any{"led": "head", "colors": []any{}}, false, `[{"blue":0,"green":0,"red":255},{"blue":1,"green":128,"red":0}]`},
				{map[string]any{"led": "status"}, true, `[{"blue":0,"green":0,"red":255},{"blue":1,"green":128,"red":0}]`},
				{map[string]any{"led": "status"}, true, `[]`},
			} {
				res, err := r.CallService(ctx, simSetLED, typeSetLED, c.req, 10*time.Second)
				if err != nil || res["success"] != c.success || asJSON(t, res["previous"]) != c.previous {
					t.Fatalf("set_led %v: %v %v, want success %v, previous %s", c.req, res, err, c.success, c.previous)
				}
			}
			if !strings.Contains(sim.Output(), "simrobot: status LED set: 2 colours at 2 Hz") {
				t.Errorf("the sim did not log the LED:\n%s", sim.Output())
			}
			// The sim's nodes describe the types their endpoints use, and
			// fail as rcl fails otherwise.
			trigger, err := simSet(t, d).TypeHash("std_srvs/srv/Trigger")
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range []struct {
				node, typ, hash string
				success         bool
				reason          string
			}{
				{"/simrobot", "std_srvs/srv/Trigger", trigger, true, ""},
				{"/simrobot", "any/srv/Name", trigger, true, ""}, // rcl looks the hash up, not the name
				{"/simrobot", typeSetLED, want, true, ""},
				{"/joint_state_broadcaster", typeSetLED, want, false, "Type not currently in use by this node"},
				{"/simrobot", typeSetLED, "RIHS01_" + strings.Repeat("0", 64), false, "Type not currently in use by this node"},
				{"/simrobot", typeSetLED, "RIHS01_xyz", false, "Failed to parse type hash"},
			} {
				res, err := r.CallService(ctx, c.node+"/get_type_description", typeGetTypeDescription,
					map[string]any{"type_name": c.typ, "type_hash": c.hash}, 10*time.Second)
				if err != nil || res["successful"] != c.success || res["failure_reason"] != c.reason {
					t.Fatalf("%s describing %s %s: %v %v", c.node, c.typ, c.hash, res, err)
				}
				if c.success {
					var td msgdef.TypeDescription
					if err := json.Unmarshal([]byte(asJSON(t, res["type_description"])), &td); err != nil || td.Hash() != c.hash {
						t.Fatalf("%s's description of %s hashes %s, want %s (%v)", c.node, c.typ, td.Hash(), c.hash, err)
					}
				}
			}
			// A request that does not fit the learned type is refused before it leaves.
			for _, req := range []map[string]any{
				{"colors": []any{map[string]any{"red": 256}}},
				{"colors": []any{map[string]any{"cyan": 1}}},
				{"colors": make([]any, 9)},
			} {
				if _, err := r.CallService(ctx, simSetLED, typeSetLED, req, 5*time.Second); !errors.Is(err, actuators.ErrInvalidArgument) || !errors.Is(err, actuators.ErrServiceNotSent) {
					t.Errorf("%v: %v, want invalid and not sent", req, err)
				}
			}
		})
	}
}

// On Humble no node describes its types: a service of a type outside
// the set is refused, with the reason, and nothing is sent.
func TestHumbleRefusesServiceTypesOutsideItsSet(t *testing.T) {
	startSim(t, msgs.Humble, 152)
	r := openOn(t, msgs.Humble, 152, config.DiscoveryLocalhost)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	providersOf(t, r, simSetLED)
	typ, err := r.ServiceType(ctx, simSetLED)
	if typ != typeSetLED || !errors.Is(err, actuators.ErrUnsupportedType) || !strings.Contains(err.Error(), "Humble nodes describe no types") {
		t.Fatalf("ServiceType %q %v", typ, err)
	}
	_, err = r.CallService(ctx, simSetLED, typeSetLED, map[string]any{"led": "status"}, 5*time.Second)
	if !errors.Is(err, actuators.ErrServiceNotSent) || !errors.Is(err, actuators.ErrUnsupportedType) {
		t.Fatalf("CallService: %v", err)
	}
	if slices.ContainsFunc(r.ServiceTypes(), func(s actuators.ServiceType) bool { return s.Name == typeSetLED }) {
		t.Fatal("SetLed offered on Humble")
	}
}

// A node that cannot prove a type is refused with the reason, the type
// stays unoffered, and the request never reaches its server: a node
// serving no ~/get_type_description, one whose description hashes to
// another hash than its server announced, one that answers a malformed
// description, one that fails as rcl fails.
func TestServiceTypesThatCannotBeProvenAreRefused(t *testing.T) {
	const domain = 153
	netns.Require(t)
	set := simSet(t, msgs.Jazzy)
	good, err := set.Describe(typeSetLED)
	if err != nil {
		t.Fatal(err)
	}
	hash := good.Hash()
	malformed := good
	malformed.Type.Fields = append([]msgdef.Field{{Name: "extra", Type: msgdef.FieldType{TypeID: 12}}}, good.Type.Fields...)
	for i, c := range []struct {
		why      string
		describe bool                                     // serve ~/get_type_description
		announce string                                   // the hash the SetLed server announces
		answer   func() (*msgdef.TypeDescription, string) // the description, or a failure reason
		says     string
	}{
		{"no type description service", false, hash, nil, "serves no type_description_interfaces/srv/GetTypeDescription"},
		{"hash mismatch", true, "RIHS01_" + strings.Repeat("ab", 32), func() (*msgdef.TypeDescription, string) { return &good, "" }, "does not match its hash"},
		{"malformed description", true, hash, func() (*msgdef.TypeDescription, string) { return &malformed, "" }, "bad type description"},
		{"rcl's failure", true, hash, func() (*msgdef.TypeDescription, string) { return nil, "Type not currently in use by this node" }, "Type not currently in use by this node"},
	} {
		t.Run(c.why, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
			defer cancel()
			calls := serveLiar(ctx, t, set, domain+10*(i+1), c.describe, c.announce, c.answer)
			r := openOn(t, msgs.Jazzy, domain+10*(i+1), config.DiscoveryLocalhost)
			providersOf(t, r, "/liar/set_led")
			typ, err := r.ServiceType(ctx, "/liar/set_led")
			if typ != typeSetLED || !errors.Is(err, actuators.ErrUnsupportedType) || !strings.Contains(err.Error(), c.says) {
				t.Fatalf("ServiceType %q %v, want unsupported saying %q", typ, err, c.says)
			}
			_, err = r.CallService(ctx, "/liar/set_led", typeSetLED, map[string]any{"led": "status"}, 5*time.Second)
			if !errors.Is(err, actuators.ErrServiceNotSent) || !strings.Contains(err.Error(), c.says) {
				t.Fatalf("CallService: %v", err)
			}
			if slices.ContainsFunc(r.ServiceTypes(), func(s actuators.ServiceType) bool { return s.Name == typeSetLED }) {
				t.Fatal("an unproven type is offered")
			}
			if n := calls(); n != 0 {
				t.Fatalf("the SetLed server saw %d requests", n)
			}
		})
	}
}

// serveLiar serves /liar/set_led (SetLed, announcing hash announce) on
// node /liar of its own participant, and, when describe, /liar's
// ~/get_type_description answering answer(). It returns how many SetLed
// requests arrived.
func serveLiar(ctx context.Context, t *testing.T, set *msgs.Set, domain int, describe bool, announce string,
	answer func() (*msgdef.TypeDescription, string)) func() int {
	t.Helper()
	nc, err := node.NewContext(ctx, node.Options{Distro: set.Distro, Discovery: node.Discovery{Domain: domain, Range: node.Localhost}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	n, err := nc.NewNode("liar", "/")
	if err != nil {
		t.Fatal(err)
	}
	led, err := service.ResolveTypes(set, typeSetLED)
	if err != nil {
		t.Fatal(err)
	}
	led.UserData = []byte("typehash=" + announce + ";")
	calls := make(chan struct{}, 16)
	srv, err := service.NewServer(nc.Participant(), led, "/liar/set_led", func(context.Context, *cdr.Message) (*cdr.Message, error) {
		calls <- struct{}{}
		return cdr.Zero(led.Response), nil
	}, service.Options{Endpoints: n.Announce})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	if describe {
		gtd, err := service.ResolveTypes(set, typeGetTypeDescription)
		if err != nil {
			t.Fatal(err)
		}
		descType, err := set.Struct("type_description_interfaces/msg/TypeDescription")
		if err != nil {
			t.Fatal(err)
		}
		d, reason := answer()
		var desc *cdr.Message
		if d != nil {
			if desc, err = d.Message(descType); err != nil {
				t.Fatal(err)
			}
		}
		ds, err := service.NewServer(nc.Participant(), gtd, "/liar/get_type_description", func(context.Context, *cdr.Message) (*cdr.Message, error) {
			rep := cdr.Zero(gtd.Response)
			if desc != nil {
				_ = rep.Set("type_description", desc)
			}
			_ = rep.Set("successful", desc != nil)
			_ = rep.Set("failure_reason", reason)
			return rep, nil
		}, service.Options{Endpoints: n.Announce})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ds.Close() })
	}
	return func() int { return len(calls) }
}

// TestAFailedLearningIsNotRetriedForAWhile: services_list probes every
// service of a page, so a node that cannot describe a type is asked once
// per failedFor, not once per probe; the memory stays bounded.
func TestAFailedLearningIsNotRetriedForAWhile(t *testing.T) {
	var l learnedTypes
	t0 := time.Unix(1000, 0)
	why := errors.New("no describer")
	l.fail("p/srv/A", "h1", why, t0)
	for _, c := range []struct {
		name, hash string
		at         time.Duration
		want       error
	}{
		{"p/srv/A", "h1", 0, why},
		{"p/srv/A", "h1", failedFor - time.Nanosecond, why},
		{"p/srv/A", "h1", failedFor, nil},
		{"p/srv/A", "h2", 0, nil}, // another hash is another type
		{"p/srv/B", "h1", 0, nil},
	} {
		if got := l.failedBefore(c.name, c.hash, t0.Add(c.at)); got != c.want {
			t.Errorf("%s %s at +%s: %v, want %v", c.name, c.hash, c.at, got, c.want)
		}
	}
	for i := range 3 * maxLearned {
		l.fail(fmt.Sprintf("p/srv/X%d", i), "h", why, t0)
		if len(l.failed) > maxLearned {
			t.Fatalf("%d failures kept", len(l.failed))
		}
	}
}
