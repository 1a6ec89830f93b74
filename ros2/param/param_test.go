package param

import (
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/actbridge/actbridge/cdr"
	"github.com/actbridge/actbridge/msgs/ros2"
	"github.com/actbridge/actbridge/ros2/names"
	"github.com/actbridge/actbridge/ros2/qos"
	"github.com/actbridge/actbridge/ros2/service"
	"github.com/actbridge/actbridge/ros2/service/servicetest"
	"github.com/actbridge/actbridge/rtps"
	"github.com/actbridge/actbridge/test/netns"
)

// TestMain runs the package's tests inside a network namespace it made.
func TestMain(m *testing.M) { netns.Main(m) }

const node = "/arm/controller"

// paramNode serves a node's parameter services from a map, refuses to
// set "read_only.*" and publishes a ParameterEvent for every change, as
// rclcpp does.
type paramNode struct {
	mu     sync.Mutex
	params map[string]*cdr.Message // name → ParameterValue
	events *rtps.Writer
	evT    *cdr.Struct
}

func newParamNode(t *testing.T, p *rtps.Participant, set *msgs.Set) *paramNode {
	t.Helper()
	n := &paramNode{params: map[string]*cdr.Message{}}
	n.evT, _ = set.Struct("rcl_interfaces/msg/ParameterEvent")
	topic, _ := names.TopicDDS(EventsTopic)
	typ, _ := names.TypeDDS("rcl_interfaces/msg/ParameterEvent")
	var err error
	if n.events, err = p.NewWriter(rtps.EndpointData{Topic: topic, Type: typ, QoS: qos.ParameterEvents.QoS}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.events.Close() })
	for _, s := range []struct {
		name, typ string
		h         func(req, rep *cdr.Message)
	}{
		{listService, "rcl_interfaces/srv/ListParameters", n.list},
		{getService, "rcl_interfaces/srv/GetParameters", n.get},
		{setService, "rcl_interfaces/srv/SetParameters", n.set},
		{describeService, "rcl_interfaces/srv/DescribeParameters", n.describe},
	} {
		srv, _, err := serve(p, set, node+"/"+s.name, s.typ, s.h, service.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { srv.Close() })
	}
	return n
}

func (n *paramNode) list(req, rep *cdr.Message) {
	n.mu.Lock()
	defer n.mu.Unlock()
	var out []string
	for k := range n.params {
		out = append(out, k)
	}
	sort.Strings(out)
	rep.Get("result").(*cdr.Message).Set("names", out)
}

func (n *paramNode) get(req, rep *cdr.Message) {
	n.mu.Lock()
	defer n.mu.Unlock()
	names := req.Get("names").([]string)
	vt := rep.Type.Field(0).Type
	vs := cdr.MakeSlice(vt, len(names)).([]*cdr.Message)
	for i, name := range names {
		if v, ok := n.params[name]; ok {
			vs[i] = v
		}
	}
	rep.Set("values", vs)
}

func (n *paramNode) set(req, rep *cdr.Message) {
	n.mu.Lock()
	defer n.mu.Unlock()
	ps := req.Get("parameters").([]*cdr.Message)
	rs := cdr.MakeSlice(rep.Type.Field(0).Type, len(ps)).([]*cdr.Message)
	ev := cdr.Zero(n.evT)
	ev.Set("node", node)
	var fresh, changed []*cdr.Message
	for i, p := range ps {
		name := p.Get("name").(string)
		if strings.HasPrefix(name, "read_only.") {
			rs[i].Set("reason", "parameter is read only")
			continue
		}
		rs[i].Set("successful", true)
		if _, had := n.params[name]; had {
			changed = append(changed, p)
		} else {
			fresh = append(fresh, p)
		}
		n.params[name] = p.Get("value").(*cdr.Message)
	}
	rep.Set("results", rs)
	ev.Set("new_parameters", append([]*cdr.Message{}, fresh...))
	ev.Set("changed_parameters", append([]*cdr.Message{}, changed...))
	b, _ := cdr.Encode(ev, cdr.LittleEndian)
	n.events.Write(b, nil)
}

func (n *paramNode) describe(req, rep *cdr.Message) {
	n.mu.Lock()
	defer n.mu.Unlock()
	names := req.Get("names").([]string)
	ds := cdr.MakeSlice(rep.Type.Field(0).Type, len(names)).([]*cdr.Message)
	for i, name := range names {
		ds[i].Set("name", name)
		if v, ok := n.params[name]; ok {
			ds[i].Set("type", v.Get("type"))
		}
		ds[i].Set("read_only", strings.HasPrefix(name, "read_only."))
		ds[i].Set("description", "test parameter "+name)
	}
	rep.Set("descriptors", ds)
}

func TestRemoteParametersAreListedReadSetAndDescribed(t *testing.T) {
	netns.Require(t)
	set, err := msgs.Load(msgs.Jazzy)
	if err != nil {
		t.Fatal(err)
	}
	sp, cp := servicetest.Participant(t, 80), servicetest.Participant(t, 80)
	newParamNode(t, sp, set)
	events, err := SubscribeEvents(cp, set, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer events.Close()
	c, err := NewClient(cp, set, node, service.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := servicetest.Timeout(t, 20*time.Second)
	values := []Parameter{
		{"use_sim_time", Value{false}}, {"rate", Value{int64(100)}}, {"gain", Value{0.5}},
		{"joints", Value{[]string{"a", "b"}}}, {"limits", Value{[]float64{1, 2}}}, {"blob", Value{[]byte{1, 2}}},
		{"read_only.x", Value{true}},
	}
	res, err := c.Set(ctx, values...)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range res {
		if ro := strings.HasPrefix(values[i].Name, "read_only."); r.Successful == ro {
			t.Errorf("set %s: %+v", values[i].Name, r)
		}
	}
	ev, err := events.Next(ctx)
	if err != nil || ev.Node != node || len(ev.New) != 6 || ev.New[1].Value.V != int64(100) {
		t.Fatalf("event %+v, %v", ev, err)
	}
	got, err := c.List(ctx, nil, 0)
	if want := []string{"blob", "gain", "joints", "limits", "rate", "use_sim_time"}; err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("list %v %v, want %v", got, err, want)
	}
	vs, err := c.Get(ctx, "gain", "joints", "missing")
	if err != nil || vs[0].V != 0.5 || !reflect.DeepEqual(vs[1].V, []string{"a", "b"}) || vs[2].V != nil {
		t.Fatalf("get %+v %v", vs, err)
	}
	ds, err := c.Describe(ctx, "rate", "read_only.x")
	if err != nil || ds[0].Type != Integer || ds[0].ReadOnly || !ds[1].ReadOnly {
		t.Fatalf("describe %+v %v", ds, err)
	}
	if _, err := c.Set(ctx, Parameter{"bad", Value{int32(1)}}); err == nil {
		t.Fatal("an int32 was taken as a parameter value")
	}
}
