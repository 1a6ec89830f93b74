package bridge

import (
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/allowlist"
)

// fakeROS is a parameter server, a few std_srvs services and a camera that
// count every request that reaches them, so refusals can prove that
// nothing did.
type fakeROS struct {
	mu       sync.Mutex
	params   map[string]any
	reads    int // GetParam/ParamNames calls
	sets     int
	services map[string]string // name → type
	types    []actuators.ServiceType
	// learn holds types the transport learns when a service of that type
	// is probed (ros2: from the node's type description), by service name.
	learn    map[string]actuators.ServiceType
	requests []map[string]any // every request that reached a service
	probes   int
	calls    map[string]int
	frames   int
	answer   map[string]any // the next CallService response
	callErr  error
	setErr   error // what SetParam answers, as a node refusing the value
}

func newFakeROS() *fakeROS {
	return &fakeROS{
		params: map[string]any{
			"/sim/led/brightness": 0.5, "/sim/led/enabled": false, "/sim/camera/label": "cam",
			"/sim/config/serial": "S1", "/sim/secret/token": "hunter2", "/sim/config/wheels": int64(2),
			"/sim/big/blob": strings.Repeat("x", 5000),
		},
		services: map[string]string{"/sim/status": "std_srvs/Trigger", "/sim/led/set": "std_srvs/SetBool",
			"/sim/reset": "std_srvs/Empty", "/sim/apply_faults": "std_srvs/Trigger", "/sim/map": "nav_msgs/GetMap"},
		calls: map[string]int{},
		types: []actuators.ServiceType{
			{Name: "std_srvs/Empty", Request: []actuators.ServiceField{}, Response: []actuators.ServiceField{}},
			{Name: "std_srvs/SetBool", Request: []actuators.ServiceField{{Name: "data", Type: "bool"}}, Response: []actuators.ServiceField{{Name: "success", Type: "bool"}, {Name: "message", Type: "string"}}},
			{Name: "std_srvs/Trigger", Request: []actuators.ServiceField{}, Response: []actuators.ServiceField{{Name: "success", Type: "bool"}, {Name: "message", Type: "string"}}},
		},
		learn: map[string]actuators.ServiceType{},
	}
}

// setParameters is rcl_interfaces/srv/SetParameters as the ros2 transport
// describes it: a request nesting messages two deep.
func setParameters() actuators.ServiceType {
	return actuators.ServiceType{Name: "rcl_interfaces/srv/SetParameters",
		Request:  []actuators.ServiceField{{Name: "parameters", Type: "rcl_interfaces/msg/Parameter[]"}},
		Response: []actuators.ServiceField{{Name: "results", Type: "rcl_interfaces/msg/SetParametersResult[]"}},
		Messages: map[string][]actuators.ServiceField{
			"rcl_interfaces/msg/Parameter": {{Name: "name", Type: "string"}, {Name: "value", Type: "rcl_interfaces/msg/ParameterValue"}},
			"rcl_interfaces/msg/ParameterValue": {{Name: "type", Type: "uint8"}, {Name: "bool_value", Type: "bool"},
				{Name: "integer_value", Type: "int64"}, {Name: "double_value", Type: "float64"}, {Name: "string_value", Type: "string"},
				{Name: "byte_array_value", Type: "uint8[]"}, {Name: "bool_array_value", Type: "bool[]"}, {Name: "integer_array_value", Type: "int64[]"},
				{Name: "double_array_value", Type: "float64[]"}, {Name: "string_array_value", Type: "string[]"}},
			"rcl_interfaces/msg/SetParametersResult": {{Name: "successful", Type: "bool"}, {Name: "reason", Type: "string"}},
		}}
}

// learnOnProbe makes a service of typ appear whose type the fake's
// ServiceTypes lists only after the service was probed.
func (f *fakeROS) learnOnProbe(service string, typ actuators.ServiceType) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.services[service] = typ.Name
	f.learn[service] = typ
}

// knows adds typ to ServiceTypes at once and serves it at service.
func (f *fakeROS) knows(service string, typ actuators.ServiceType) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.services[service] = typ.Name
	f.types = append(f.types, typ)
}

// redefines replaces the definition of a type it lists, as a node
// restarted with another type under the same name.
func (f *fakeROS) redefines(typ actuators.ServiceType) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i, t := range f.types {
		if t.Name == typ.Name {
			f.types[i] = typ
		}
	}
}

func (f *fakeROS) lastRequest() map[string]any {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.requests) == 0 {
		return nil
	}
	return f.requests[len(f.requests)-1]
}

func (f *fakeROS) ParamNames(context.Context) ([]string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reads++
	var out []string
	for k := range f.params {
		out = append(out, k)
	}
	return out, nil
}

func (f *fakeROS) GetParam(_ context.Context, name string) (any, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reads++
	if v, ok := f.params[name]; ok {
		return v, nil
	}
	// a namespace reads as a dict of everything under it
	dict := map[string]any{}
	for k, v := range f.params {
		if rest, ok := strings.CutPrefix(k, name+"/"); ok {
			parts := strings.Split(rest, "/")
			m := dict
			for _, p := range parts[:len(parts)-1] {
				sub, _ := m[p].(map[string]any)
				if sub == nil {
					sub = map[string]any{}
					m[p] = sub
				}
				m = sub
			}
			m[parts[len(parts)-1]] = v
		}
	}
	if len(dict) > 0 {
		return dict, nil
	}
	return nil, fmt.Errorf("%w: %s", actuators.ErrParamNotSet, name)
}

func (f *fakeROS) SetParam(_ context.Context, name string, v any) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sets++
	if f.setErr != nil {
		return f.setErr
	}
	f.params[name] = v
	return nil
}

func (f *fakeROS) Services(context.Context) ([]actuators.ServiceInfo, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []actuators.ServiceInfo
	for k := range f.services {
		out = append(out, actuators.ServiceInfo{Name: k, Providers: []string{"/sim"}})
	}
	return out, nil
}

func (f *fakeROS) ServiceType(_ context.Context, name string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.probes++
	t, ok := f.services[name]
	if !ok {
		return "", fmt.Errorf("%w: %s", actuators.ErrUnknownService, name)
	}
	if lt, ok := f.learn[name]; ok {
		delete(f.learn, name)
		if !slices.ContainsFunc(f.types, func(x actuators.ServiceType) bool { return x.Name == lt.Name }) {
			f.types = append(f.types, lt)
		}
	}
	return t, nil
}

func (f *fakeROS) ServiceTypes() []actuators.ServiceType {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.types)
}

func (f *fakeROS) CallService(_ context.Context, name, typ string, req map[string]any, _ time.Duration) (map[string]any, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.callErr != nil {
		return nil, f.callErr
	}
	if f.services[name] != typ {
		return nil, fmt.Errorf("%w: type mismatch", actuators.ErrServiceNotSent)
	}
	f.calls[name]++
	f.requests = append(f.requests, req)
	if f.answer != nil {
		return f.answer, nil
	}
	b, _ := json.Marshal(req)
	return map[string]any{"success": true, "message": "got " + string(b)}, nil
}

func (f *fakeROS) Snapshot(_ context.Context, topic string, _ time.Duration) (actuators.Frame, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.frames++
	img := image.NewRGBA(image.Rect(0, 0, 640, 480))
	for y := 0; y < 480; y++ {
		for x := 0; x < 640; x++ {
			img.Set(x, y, color.RGBA{uint8(x), uint8(y), uint8(x ^ y), 255}) // noisy: hard to compress
		}
	}
	return actuators.Frame{Topic: topic, Type: "sensor_msgs/Image", Source: "rgb8", Image: img, Stamp: time.Unix(100, 0)}, nil
}

// fakeROS has no topics of its own: the motion rig's fakeRobot lists them.
func (f *fakeROS) Topics(context.Context) ([]actuators.TopicInfo, error) { return nil, nil }
func (f *fakeROS) SampleTypes() []string                                 { return nil }
func (f *fakeROS) SampleTopic(_ context.Context, topic string, _ int, _ time.Duration) ([]any, error) {
	return nil, fmt.Errorf("%w: %s", actuators.ErrUnknownTopic, topic)
}

func (f *fakeROS) WatchTopic(ctx context.Context, _ string, _ func(any)) error {
	<-ctx.Done()
	return nil
}

func (f *fakeROS) counts() (reads, sets, probes, calls, frames int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, c := range f.calls {
		n += c
	}
	return f.reads, f.sets, f.probes, n, f.frames
}

// rosRig is the motion rig plus the ROS tools over a fakeROS.
type rosRig struct {
	*rig
	ros    *fakeROS
	tools  *ROSTools
	events *Events
	images *Images
	data   string
}

func newROSRig(t *testing.T) *rosRig {
	t.Helper()
	r := newRig(t)
	x := &rosRig{rig: r, ros: newFakeROS(), events: NewEvents(100, nil), images: NewImages(), data: t.TempDir()}
	// The rig's Previewer is not kept by newRig; rebuild the one the tools need.
	pv := &Previewer{Robot: r.robot, Store: r.store, Signer: r.m.Signer, Motions: r.m, TTL: time.Minute, StaleAfter: time.Second, Now: r.clock}
	one := 1.0
	x.tools = &ROSTools{ROS: x.ros, DataDir: x.data, Previewer: pv, Images: x.images, Policy: AccessPolicy{
		Topics:    allowlist.Globs{"/camera/*", "/odom"},
		ParamRead: allowlist.Globs{"/sim/led/*", "/sim/config/*", "/sim/big/*"},
		ParamSet: []ParamRule{{Pattern: "/sim/led/brightness", Type: "double", Min: new(float64), Max: &one},
			{Pattern: "/sim/led/enabled", Type: "bool"}, {Pattern: "/sim/camera/label", Type: "string", MaxLength: 8}},
		Services: []ServiceRule{{Pattern: "/sim/status", Tier: TierRead}, {Pattern: "/sim/led/set", Tier: TierWrite, Type: "std_srvs/SetBool"},
			{Pattern: "/sim/reset", Tier: TierIrreversible, Confirm: RolePlanner}, {Pattern: "/sim/map", Tier: TierRead},
			{Pattern: "/arm/**", Tier: TierWrite}},
	}}
	r.m.ROS = x.ros
	next := r.m.Confirmer // the policy as tests change it
	r.m.Confirmer = func(a string) Role { return x.tools.Policy.Confirmer(next)(a) }
	r.p.Registry.MustAdd(x.tools.Tools()...)
	r.p.Registry.MustAdd(EventsReadTool(x.events))
	r.m.Changed = x.events.MotionChanged
	return x
}
