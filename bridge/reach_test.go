package bridge

import (
	"strings"
	"testing"

	"github.com/actbridge/actbridge/allowlist"
)

// listing is one discovery page as names and, for the operator, the names
// marked as out of the planner's reach.
func listing(t *testing.T, page map[string]any) (names, hidden []string) {
	t.Helper()
	for _, it := range page["items"].([]any) {
		m := it.(map[string]any)
		names = append(names, m["name"].(string))
		if a, marked := m[reachField]; marked && a != true {
			hidden = append(hidden, m["name"].(string))
		}
	}
	return names, hidden
}

func TestDiscoveryShowsThePlannerOnlyWhatItMayReachAndTheOperatorAllMarked(t *testing.T) {
	r := newROSRig(t)
	cases := []struct {
		tool, args string
		role       Role
		names      string // listed, in order
		hidden     string // listed with planner_allowed false
	}{
		{"topics_list", `{}`, RolePlanner, "/odom", ""},
		{"topics_list", `{}`, RoleOperator, "/joint_states /odom", "/joint_states"},
		{"topics_list", `{"prefix":"/j"}`, RolePlanner, "", ""},
		{"services_list", `{}`, RolePlanner, "/sim/led/set /sim/map /sim/reset /sim/status", ""},
		{"services_list", `{}`, RoleOperator, "/sim/apply_faults /sim/led/set /sim/map /sim/reset /sim/status", "/sim/apply_faults"},
		{"params_get", `{"prefix":"/sim/s"}`, RolePlanner, "", ""},
		{"params_get", `{"prefix":"/sim/s"}`, RoleOperator, "/sim/secret/token", "/sim/secret/token"},
		{"params_get", `{"prefix":"/sim/c"}`, RolePlanner, "/sim/camera/label /sim/config/serial /sim/config/wheels", ""},
		{"params_get", `{"name":"/sim/secret/token"}`, RoleOperator, "/sim/secret/token", "/sim/secret/token"},
		{"params_get", `{"name":"/sim/led/enabled"}`, RoleOperator, "/sim/led/enabled", ""},
	}
	for _, c := range cases {
		t.Run(c.tool+" "+c.args+" as "+string(c.role), func(t *testing.T) {
			page := mustOK(t, r, c.role, c.tool, c.args)
			names, hidden := listing(t, page)
			if got := strings.Join(names, " "); got != c.names {
				t.Fatalf("listed %q, want %q", got, c.names)
			}
			if got := strings.Join(hidden, " "); got != c.hidden {
				t.Fatalf("marked out of reach %q, want %q", got, c.hidden)
			}
			if page["total"].(float64) != float64(len(names)) {
				t.Fatalf("total %v for %d names", page["total"], len(names))
			}
			for _, it := range page["items"].([]any) {
				_, marked := it.(map[string]any)[reachField]
				if marked != (c.role == RoleOperator) {
					t.Fatalf("%s: planner_allowed present %v for %s", it, marked, c.role)
				}
			}
		})
	}
}

func TestOperatorSeesEveryLeafOfANamespaceThePlannerSeesFiltered(t *testing.T) {
	r := newROSRig(t)
	r.tools.Policy.ParamRead = allowlist.Globs{"/sim/*", "/sim/config/serial"}
	r.ros.params["/sim/config/pin"] = "0000"
	planner := mustOK(t, r, RolePlanner, "params_get", `{"name":"/sim/config"}`)["items"].([]any)[0].(map[string]any)["value"].(map[string]any)
	operator := mustOK(t, r, RoleOperator, "params_get", `{"name":"/sim/config"}`)["items"].([]any)[0].(map[string]any)["value"].(map[string]any)
	if len(planner) != 1 || len(operator) != 3 || operator["pin"] != "0000" {
		t.Fatalf("planner %v, operator %v", planner, operator)
	}
}

func TestACursorOfOneRoleIsRefusedForTheOther(t *testing.T) {
	r := newROSRig(t)
	first := mustOK(t, r, RolePlanner, "services_list", `{"limit":1}`)
	_, err := r.call(t, RoleOperator, "services_list", `{"limit":1,"cursor":"`+first["next_cursor"].(string)+`"}`)
	if err == nil || err.Code != CodeInvalidArgument {
		t.Fatalf("the planner's cursor paged the operator's longer list: %v", err)
	}
}
