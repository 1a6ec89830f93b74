package test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/actbridge/actbridge/test/bridgetest"
)

// service_call sends a request nesting messages through the bridge binary
// over ROS 2: sim-ros2.yaml with the sim node's own
// rcl_interfaces/srv/SetParameters allowlisted as a write-tier service
// changes faults.arm.lag, which params_get then reads; a request breaking
// the type inside a nested message is refused with its path.
func TestNestedServiceRequestSetsAParameterOverROS2(t *testing.T) {
	cfg := simConfig(t, ros2, map[string]string{
		"    - {name: /simrobot/goals, tier: read}": "    - {name: /simrobot/goals, tier: read}\n" +
			"    - {name: /simrobot/set_parameters, tier: write, type: rcl_interfaces/srv/SetParameters}",
		"      - /diff_drive_controller/*\n": "      - /diff_drive_controller/*\n      - /simrobot/faults.arm.lag\n",
	})
	w := newWorld(t, worldOpts{tr: ros2, config: cfg})
	cs := w.mcpClient("")
	lag := func() any {
		t.Helper()
		got := bridgetest.MustCall(t, cs, "params_get", map[string]any{"name": "/simrobot/faults.arm.lag"})
		return got["items"].([]any)[0].(map[string]any)["value"]
	}
	if v := lag(); v != 0.0 {
		t.Fatalf("lag before: %v", v)
	}
	list := bridgetest.MustCall(t, cs, "services_list", map[string]any{"prefix": "/simrobot/set"})
	if b, _ := json.Marshal(list["items"]); !strings.Contains(string(b), `"callable":true`) || !strings.Contains(string(b), `"type":"rcl_interfaces/srv/SetParameters"`) {
		t.Fatalf("services_list: %s", b)
	}
	set := func(value map[string]any) map[string]any {
		return map[string]any{"service": "/simrobot/set_parameters",
			"request": map[string]any{"parameters": []any{map[string]any{"name": "faults.arm.lag", "value": value}}}}
	}
	e := refused(t, cs, "service_call", set(map[string]any{"type": "double", "double_value": 0.25}), "invalid_argument", "")
	if e["field"] != "request.parameters[0].value.type" || e["expected"] != "integer in [0, 255]" || e["actual"] != `string "double"` {
		t.Fatalf("a bad nested field: %v", e)
	}
	// type 3: PARAMETER_DOUBLE (rcl_interfaces/msg/ParameterType)
	got := bridgetest.MustCall(t, cs, "service_call", set(map[string]any{"type": 3, "double_value": 0.25}))
	results, _ := got["response"].(map[string]any)["results"].([]any)
	if got["tier"] != "write" || len(results) != 1 || results[0].(map[string]any)["successful"] != true {
		t.Fatalf("service_call: %v", got)
	}
	if v := lag(); v != 0.25 {
		t.Fatalf("lag after set_parameters: %v", v)
	}
}
