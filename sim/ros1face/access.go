package ros1face

import (
	"encoding/json"
	"fmt"
	"sort"
	"sync"

	"github.com/bluenviron/goroslib/v2"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/std_srvs"

	"github.com/actbridge/actbridge/ros1/roslink"
	"github.com/actbridge/actbridge/sim"
)

// AccessParams are the parameters the sim sets under /<name>/ on every
// (re)connection, for the bridge's params tools: relative key → value.
func AccessParams() map[string]any {
	return map[string]any{
		"led/brightness":        0.5,
		"led/enabled":           false,
		"camera/label":          "sim camera",
		"camera/frame_rate":     float64(sim.CameraHz),
		"config/serial":         "SIM-0001",
		"config/max_payload_kg": 2.5,
		"config/wheel_count":    2,
	}
}

// The std_srvs services the sim offers under /<name>/ for the bridge's
// service tools. AccessCallsService answers with how often each of them
// was called, as JSON: the proof of what reached the robot.
const (
	StatusService      = "status"         // std_srvs/Trigger: a one-line status
	LEDService         = "led/set"        // std_srvs/SetBool: switch the LED
	ResetOdomService   = "reset_odometry" // std_srvs/Empty: base pose back to zero
	PowerOffService    = "power_off"      // std_srvs/Trigger: what no planner should reach (counted, does nothing)
	AccessCallsService = "access_calls"   // std_srvs/Trigger: the call counts
)

// accessState is what the access services keep: the LED and call counts.
type accessState struct {
	mu    sync.Mutex
	led   bool
	calls map[string]int
}

func (a *accessState) count(name string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.calls == nil {
		a.calls = map[string]int{}
	}
	a.calls[name]++
}

// setupAccess sets the access parameters and provides the std_srvs
// services on n; it returns what to close with the node.
func (s *server) setupAccess(n *goroslib.Node) ([]closer, error) {
	params := AccessParams()
	keys := make([]string, 0, len(params))
	for k := range params {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		key := "/" + s.cfg.Name + "/" + k
		var err error
		switch v := params[k].(type) {
		case float64:
			err = roslink.SetParamFloat64(n, key, v)
		case bool:
			err = roslink.SetParamBool(n, key, v)
		case int:
			err = roslink.SetParamInt(n, key, v)
		case string:
			err = roslink.SetParamString(n, key, v)
		}
		if err != nil {
			return nil, fmt.Errorf("set %s: %w", key, err)
		}
	}
	a := &s.acc
	full := func(svc string) string { return "/" + s.cfg.Name + "/" + svc }
	var out []closer
	provide := func(svc string, srv, cb any) error {
		sp, err := goroslib.NewServiceProvider(goroslib.ServiceProviderConf{Node: n, Name: full(svc), Srv: srv, Callback: cb})
		if err != nil {
			return fmt.Errorf("service %s: %w", svc, err)
		}
		out = append(out, sp)
		return nil
	}
	err := provide(StatusService, &std_srvs.Trigger{}, func(*std_srvs.TriggerReq) (*std_srvs.TriggerRes, bool) {
		a.count(full(StatusService))
		p := s.r.BasePose()
		return &std_srvs.TriggerRes{Success: true, Message: fmt.Sprintf("ok: base at (%.3f, %.3f)", p.X, p.Y)}, true
	})
	if err == nil {
		err = provide(LEDService, &std_srvs.SetBool{}, func(req *std_srvs.SetBoolReq) (*std_srvs.SetBoolRes, bool) {
			a.count(full(LEDService))
			a.mu.Lock()
			a.led = req.Data
			a.mu.Unlock()
			return &std_srvs.SetBoolRes{Success: true, Message: map[bool]string{true: "led on", false: "led off"}[req.Data]}, true
		})
	}
	if err == nil {
		err = provide(ResetOdomService, &std_srvs.Empty{}, func(*std_srvs.EmptyReq) (*std_srvs.EmptyRes, bool) {
			a.count(full(ResetOdomService))
			s.r.ResetOdometry()
			return &std_srvs.EmptyRes{}, true
		})
	}
	if err == nil {
		err = provide(PowerOffService, &std_srvs.Trigger{}, func(*std_srvs.TriggerReq) (*std_srvs.TriggerRes, bool) {
			a.count(full(PowerOffService))
			return &std_srvs.TriggerRes{Success: false, Message: "a simulated robot does not power off"}, true
		})
	}
	if err == nil {
		err = provide(AccessCallsService, &std_srvs.Trigger{}, func(*std_srvs.TriggerReq) (*std_srvs.TriggerRes, bool) {
			a.mu.Lock()
			b, _ := json.Marshal(map[string]any{"calls": a.calls, "led": a.led})
			a.mu.Unlock()
			return &std_srvs.TriggerRes{Success: true, Message: string(b)}, true
		})
	}
	if err != nil {
		for _, c := range out {
			c.Close()
		}
		return nil, err
	}
	return out, nil
}
