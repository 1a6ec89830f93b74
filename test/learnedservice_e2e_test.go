package test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/actbridge/actbridge/test/bridgetest"
)

// Through the bridge binary over ROS 2 with the shipped sim-ros2.yaml:
// /simrobot/set_led, of the sim's own actbridge_sim_msgs/srv/SetLed (no
// distro set holds it), is learned from the sim node's
// ~/get_type_description when services_list probes it, offered, and
// called with a request nesting messages; the sim answers what its LED
// showed before, so the first request reached it exactly as sent.
func TestServiceOfATypeOnlyItsNodeDescribesIsCalledOverROS2(t *testing.T) {
	w := newWorld(t, worldOpts{tr: ros2, config: simConfig(t, ros2, nil)})
	cs := w.mcpClient("")
	var listed []byte
	for range 20 { // the first probes may come before the sim's node is discovered
		list := bridgetest.MustCall(t, cs, "services_list", map[string]any{"prefix": "/simrobot/set_led"})
		listed, _ = json.Marshal(list["items"])
		if strings.Contains(string(listed), `"callable":true`) {
			break
		}
	}
	if !strings.Contains(string(listed), `"callable":true`) || !strings.Contains(string(listed), `"type":"actbridge_sim_msgs/srv/SetLed"`) {
		t.Fatalf("services_list: %s", listed)
	}
	call := func(colors []any) map[string]any {
		t.Helper()
		return bridgetest.MustCall(t, cs, "service_call", map[string]any{"service": "/simrobot/set_led",
			"request": map[string]any{"led": "status", "colors": colors, "blink_hz": 0.5}})
	}
	first := call([]any{map[string]any{"red": 200, "green": 10, "blue": 1}})
	if resp, _ := first["response"].(map[string]any); resp["success"] != true || first["tier"] != "write" {
		t.Fatalf("set_led: %v", first)
	}
	second := call([]any{})
	if b, _ := json.Marshal(second["response"]); !strings.Contains(string(b), `"previous":[{"blue":1,"green":10,"red":200}]`) {
		t.Fatalf("set_led again: %s", b)
	}
	e := refused(t, cs, "service_call", map[string]any{"service": "/simrobot/set_led",
		"request": map[string]any{"led": "status", "colors": []any{map[string]any{"red": 256}}, "blink_hz": 0}}, "invalid_argument", "")
	if e["field"] != "request.colors[0].red" {
		t.Fatalf("a bad nested field: %v", e)
	}
}
