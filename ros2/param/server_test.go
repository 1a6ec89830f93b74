package param

import (
	"reflect"
	"testing"
	"time"

	"github.com/actbridge/actbridge/cdr"
	"github.com/actbridge/actbridge/msgs/ros2"
	"github.com/actbridge/actbridge/ros2/service"
	"github.com/actbridge/actbridge/ros2/service/servicetest"
	"github.com/actbridge/actbridge/rtps"
	"github.com/actbridge/actbridge/test/netns"
)

// robotParams are the declarations the server tests serve.
func robotParams() []Declaration {
	return []Declaration{
		{Name: "speed", Value: Value{0.5}, Description: "speed scale", FloatRange: &FloatRange{From: 0, To: 1, Step: 0.25}},
		{Name: "rate", Value: Value{int64(100)}, IntegerRange: &IntegerRange{From: 10, To: 1000, Step: 10}},
		{Name: "robot_name", Value: Value{"sim"}, ReadOnly: true},
		{Name: "arm.joints", Value: Value{[]string{"j1", "j2"}}},
		{Name: "arm.limits.max", Value: Value{2.0}},
		{Name: "tag", Value: Value{"x"}, DynamicTyping: true},
	}
}

// serverRig is our Server and our Client of it on two participants.
type serverRig struct {
	set    *msgs.Set
	server *Server
	client *Client
	cp     *rtps.Participant
}

func newServerRig(t *testing.T, domain int, d service.Dialect, o ServerOptions) *serverRig {
	t.Helper()
	netns.Require(t)
	r := &serverRig{}
	var err error
	if r.set, err = msgs.Load(msgs.Jazzy); err != nil {
		t.Fatal(err)
	}
	sp, cp := servicetest.Participant(t, domain), servicetest.Participant(t, domain)
	r.cp = cp
	o.Service.Dialect = d
	if r.server, err = NewServer(sp, r.set, node, robotParams(), o); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.server.Close() })
	if r.client, err = NewClient(cp, r.set, node, service.Options{Dialect: d}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.client.Close() })
	return r
}

func TestServedParametersAreListedReadAndDescribedInBothDialects(t *testing.T) {
	for i, d := range []service.Dialect{service.Cyclone, service.FastDDS} {
		t.Run(d.String(), func(t *testing.T) {
			r := newServerRig(t, 100+i, d, ServerOptions{})
			ctx := servicetest.Timeout(t, 20*time.Second)
			got, err := r.client.List(ctx, nil, 0)
			if want := []string{"arm.joints", "arm.limits.max", "rate", "robot_name", "speed", "tag"}; err != nil || !reflect.DeepEqual(got, want) {
				t.Fatalf("list %v %v", got, err)
			}
			vs, err := r.client.Get(ctx, "speed", "arm.joints")
			if err != nil || vs[0].V != 0.5 || !reflect.DeepEqual(vs[1].V, []string{"j1", "j2"}) {
				t.Fatalf("get %+v %v", vs, err)
			}
			if _, err := r.client.Get(ctx, "speed", "missing"); err == nil {
				t.Fatal("a get naming an undeclared parameter was answered")
			}
			ds, err := r.client.Describe(ctx, "speed", "robot_name")
			if err != nil || ds[0].Type != Double || ds[0].Description != "speed scale" || !ds[1].ReadOnly {
				t.Fatalf("describe %+v %v", ds, err)
			}
			if fr := ds[0].Message.Get("floating_point_range").([]*cdr.Message); len(fr) != 1 || fr[0].Get("step") != 0.25 {
				t.Fatalf("speed's range %v", fr)
			}
		})
	}
}

func TestSetIsRefusedAsRclcppRefusesAndChangesArePublished(t *testing.T) {
	r := newServerRig(t, 102, service.Auto, ServerOptions{OnSet: func(ps []Parameter) SetResult {
		if ps[0].Name == "tag" && ps[0].Value.V == "forbidden" {
			return SetResult{Reason: "the owner says no"}
		}
		return SetResult{Successful: true}
	}})
	events, err := SubscribeEvents(r.cp, r.set, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer events.Close()
	ctx := servicetest.Timeout(t, 20*time.Second)
	for _, tc := range []struct {
		p      Parameter
		reason string // "" : accepted
	}{
		{Parameter{"missing", Value{1.0}}, "parameter 'missing' cannot be set because it was not declared"},
		{Parameter{"robot_name", Value{"other"}}, "parameter 'robot_name' cannot be set because it is read-only"},
		{Parameter{"speed", Value{int64(1)}}, "Wrong parameter type, parameter {speed} is of type {double}, setting it to {integer} is not allowed."},
		{Parameter{"speed", Value{1.5}}, "Parameter {speed} doesn't comply with floating point range."},
		{Parameter{"speed", Value{0.3}}, "Parameter {speed} doesn't comply with floating point range."},
		{Parameter{"rate", Value{int64(105)}}, "Parameter {rate} doesn't comply with integer range."},
		{Parameter{"rate", Value{nil}}, "cannot undeclare a statically typed parameter"},
		{Parameter{"tag", Value{"forbidden"}}, "the owner says no"},
		{Parameter{"speed", Value{0.75}}, ""},
		{Parameter{"rate", Value{int64(1000)}}, ""},
		{Parameter{"tag", Value{int64(7)}}, ""},
	} {
		res, err := r.client.Set(ctx, tc.p)
		if err != nil || res[0].Successful != (tc.reason == "") || res[0].Reason != tc.reason {
			t.Errorf("set %s=%v: %+v %v, want reason %q", tc.p.Name, tc.p.Value.V, res, err, tc.reason)
		}
	}
	if v, _ := r.server.Get("speed"); v.V != 0.75 {
		t.Fatalf("speed is %v", v.V)
	}
	// One event per change, in order (the declarations' event, published
	// before this reader matched, may or may not come first).
	want := []string{"speed", "rate", "tag"}
	for i := 0; i < len(want); {
		ev, err := events.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(ev.New) == len(robotParams()) && i == 0 {
			continue
		}
		if ev.Node != node || len(ev.Changed) != 1 || ev.Changed[0].Name != want[i] || len(ev.New)+len(ev.Deleted) != 0 {
			t.Fatalf("event %d: %+v, want %s changed", i, ev, want[i])
		}
		i++
	}
}

func TestAtomicSetChangesAllOrNoneAndTypesAreAnswered(t *testing.T) {
	r := newServerRig(t, 103, service.Auto, ServerOptions{})
	ctx := servicetest.Timeout(t, 20*time.Second)
	call := func(svc string, req *cdr.Message) *cdr.Message {
		t.Helper()
		c, err := service.NewClient(r.cp, r.server.types[svc], node+"/"+svc, service.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		rep, err := c.Call(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	atomic := func(ps ...Parameter) *cdr.Message {
		req := cdr.Zero(r.server.types[setAtomicallyService].Request)
		ms := make([]*cdr.Message, len(ps))
		for i, p := range ps {
			ms[i] = cdr.Zero(r.server.paramT)
			ms[i].Set("name", p.Name)
			v, _ := p.Value.message(r.server.valueT)
			ms[i].Set("value", v)
		}
		req.Set("parameters", ms)
		return call(setAtomicallyService, req).Get("result").(*cdr.Message)
	}
	res := atomic(Parameter{"speed", Value{0.25}}, Parameter{"missing", Value{true}})
	if res.Get("successful") != false || res.Get("reason") != "One or more parameters were not declared before setting" {
		t.Fatalf("atomic set with an undeclared name: %v %v", res.Get("successful"), res.Get("reason"))
	}
	res = atomic(Parameter{"speed", Value{0.25}}, Parameter{"rate", Value{int64(5)}})
	if res.Get("successful") != false {
		t.Fatal("atomic set with one value out of range succeeded")
	}
	if v, _ := r.server.Get("speed"); v.V != 0.5 {
		t.Fatalf("a refused atomic set changed speed to %v", v.V)
	}
	if res = atomic(Parameter{"speed", Value{0.25}}, Parameter{"tag", Value{nil}}); res.Get("successful") != true {
		t.Fatalf("atomic set: %v", res.Get("reason"))
	}
	if _, ok := r.server.Get("tag"); ok {
		t.Fatal("a dynamic parameter set to nothing is still declared")
	}
	req := cdr.Zero(r.server.types[typesService].Request)
	req.Set("names", []string{"speed", "arm.joints"})
	if ts := call(typesService, req).Get("types"); !reflect.DeepEqual(ts, []uint8{uint8(Double), uint8(StringArray)}) {
		t.Fatalf("types %v", ts)
	}
	req.Set("names", []string{"speed", "tag"})
	if ts := call(typesService, req).Get("types").([]uint8); len(ts) != 0 {
		t.Fatalf("types naming an undeclared parameter: %v", ts)
	}
}

func TestListFollowsPrefixesAndDepthAsRclcpp(t *testing.T) {
	set, _ := msgs.Load(msgs.Humble)
	ty, err := service.ResolveTypes(set, "rcl_interfaces/srv/ListParameters")
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{params: map[string]*Declaration{}}
	for _, n := range []string{"a", "b.c", "b.d.e", "bb", "f.g.h.i"} {
		s.params[n] = &Declaration{Name: n, Value: Value{true}}
	}
	for _, tc := range []struct {
		prefixes         []string
		depth            uint64
		names, prefixes2 []string
	}{
		{nil, 0, []string{"a", "b.c", "b.d.e", "bb", "f.g.h.i"}, []string{"b", "b.d", "f.g.h"}},
		{nil, 1, []string{"a", "bb"}, nil},
		{nil, 2, []string{"a", "b.c", "bb"}, []string{"b"}},
		{[]string{"b"}, 0, []string{"b.c", "b.d.e"}, []string{"b", "b.d"}},
		{[]string{"b"}, 1, []string{"b.c"}, []string{"b"}},
		{[]string{"bb", "f.g"}, 2, []string{"bb", "f.g.h.i"}, []string{"f.g.h"}},
	} {
		req, rep := cdr.Zero(ty.Request), cdr.Zero(ty.Response)
		req.Set("prefixes", append([]string{}, tc.prefixes...))
		req.Set("depth", tc.depth)
		s.list(req, rep)
		res := rep.Get("result").(*cdr.Message)
		if got, dirs := res.Get("names").([]string), res.Get("prefixes").([]string); !reflect.DeepEqual(got, tc.names) && !(len(got) == 0 && len(tc.names) == 0) ||
			!reflect.DeepEqual(dirs, tc.prefixes2) && !(len(dirs) == 0 && len(tc.prefixes2) == 0) {
			t.Errorf("prefixes %q depth %d: %q %q, want %q %q", tc.prefixes, tc.depth, got, dirs, tc.names, tc.prefixes2)
		}
	}
}

func TestServerAnnouncesItsEndpointsAndWithdrawsThemOnClose(t *testing.T) {
	netns.Require(t)
	set, _ := msgs.Load(msgs.Jazzy)
	live := map[string]int{}
	hook := func(e rtps.EndpointData, added bool) error {
		if added {
			live[e.Topic]++
		} else {
			live[e.Topic]--
		}
		return nil
	}
	s, err := NewServer(servicetest.Participant(t, 104), set, node, robotParams(), ServerOptions{Service: service.Options{Endpoints: hook}})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, c := range live {
		n += c
	}
	for _, want := range []string{"rt/parameter_events", "rq/arm/controller/set_parameters_atomicallyRequest", "rr/arm/controller/get_parameter_typesReply"} {
		if live[want] != 1 {
			t.Errorf("%s not announced: %v", want, live)
		}
	}
	if n != 13 {
		t.Errorf("%d endpoints announced, want 13 (six services and the events)", n)
	}
	s.Close()
	if r := s.Set(Parameter{"speed", Value{0.25}}); !r[0].Successful {
		t.Errorf("set after close: %+v", r)
	}
	for topic, c := range live {
		if c != 0 {
			t.Errorf("%s left announced", topic)
		}
	}
}
