package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"testing"

	"github.com/actbridge/actbridge/bridge"
)

var vendorName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

func export(t *testing.T, format string) []byte {
	t.Helper()
	var out bytes.Buffer
	if err := toolsExport([]string{"--format", format, "--config", "../../launch/robots/sim.yaml", "--urdf", "../../launch/simrobot.urdf"}, &out); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

func TestMCPExportIsAToolsListResult(t *testing.T) {
	var doc struct {
		Tools []struct {
			Name         string         `json:"name"`
			Description  string         `json:"description"`
			InputSchema  map[string]any `json:"inputSchema"`
			OutputSchema map[string]any `json:"outputSchema"`
			Annotations  map[string]any `json:"annotations"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(export(t, "mcp"), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Tools) < 15 {
		t.Fatalf("%d tools", len(doc.Tools))
	}
	for _, tl := range doc.Tools {
		if !vendorName.MatchString(tl.Name) || tl.Description == "" || tl.InputSchema["type"] != "object" || tl.OutputSchema["type"] != "object" {
			t.Fatalf("bad tool %+v", tl)
		}
		if _, ok := tl.Annotations["readOnlyHint"]; !ok {
			t.Fatalf("%s: no annotations", tl.Name)
		}
	}
}

// checkStrict applies OpenAI's strict-mode rules to a parameters schema:
// every object closed with every property required, no defaults.
func checkStrict(t *testing.T, tool, path string, s map[string]any) {
	t.Helper()
	if _, ok := s["default"]; ok {
		t.Fatalf("%s %s: default not allowed in strict mode", tool, path)
	}
	if s["type"] == "object" || contains(s["type"], "object") {
		if s["additionalProperties"] != false {
			t.Fatalf("%s %s: additionalProperties must be false", tool, path)
		}
		props, _ := s["properties"].(map[string]any)
		req, _ := s["required"].([]any)
		var keys, reqs []string
		for k, v := range props {
			keys = append(keys, k)
			checkStrict(t, tool, path+"."+k, v.(map[string]any))
		}
		for _, r := range req {
			reqs = append(reqs, r.(string))
		}
		sort.Strings(keys)
		sort.Strings(reqs)
		if len(keys) != len(reqs) {
			t.Fatalf("%s %s: strict mode requires every property: %v vs %v", tool, path, keys, reqs)
		}
	}
	if it, ok := s["items"].(map[string]any); ok {
		checkStrict(t, tool, path+"[]", it)
	}
	alts, _ := s["anyOf"].([]any)
	for i, a := range alts {
		checkStrict(t, tool, fmt.Sprintf("%s|%d", path, i), a.(map[string]any))
	}
}

func contains(v any, s string) bool {
	a, _ := v.([]any)
	for _, x := range a {
		if x == s {
			return true
		}
	}
	return false
}

func TestOpenAIExportFollowsFunctionToolShapeAndStrictMode(t *testing.T) {
	var tools []struct {
		Type     string `json:"type"`
		Function struct {
			Name        string         `json:"name"`
			Description string         `json:"description"`
			Parameters  map[string]any `json:"parameters"`
			Strict      bool           `json:"strict"`
		} `json:"function"`
	}
	if err := json.Unmarshal(export(t, "openai"), &tools); err != nil {
		t.Fatal(err)
	}
	strict := 0
	for _, tl := range tools {
		if tl.Type != "function" || !vendorName.MatchString(tl.Function.Name) || tl.Function.Parameters["type"] != "object" {
			t.Fatalf("bad tool %+v", tl)
		}
		if tl.Function.Strict {
			strict++
			checkStrict(t, tl.Function.Name, "", tl.Function.Parameters)
		}
	}
	if strict < len(tools)-2 { // only tools_invoke and tools_batch carry open argument maps
		t.Fatalf("only %d of %d tools strict", strict, len(tools))
	}
}

func TestAnthropicExportHasNameDescriptionAndInputSchema(t *testing.T) {
	var tools []map[string]any
	if err := json.Unmarshal(export(t, "anthropic"), &tools); err != nil {
		t.Fatal(err)
	}
	for _, tl := range tools {
		if len(tl) != 3 || !vendorName.MatchString(tl["name"].(string)) || tl["description"] == "" {
			t.Fatalf("bad tool %v", tl)
		}
		if tl["input_schema"].(map[string]any)["type"] != "object" {
			t.Fatalf("%v: input_schema", tl["name"])
		}
	}
}

func TestUnknownExportFormatIsAUsageError(t *testing.T) {
	var out bytes.Buffer
	err := toolsExport([]string{"--format", "yaml", "--config", "../../launch/robots/sim.yaml", "--urdf", "../../launch/simrobot.urdf"}, &out)
	if _, ok := err.(usageError); !ok {
		t.Fatalf("%v", err)
	}
}

func TestEveryRegisteredToolKeepsTheContract(t *testing.T) {
	ts, err := offlineTools("../../launch/robots/sim.yaml", "../../launch/simrobot.urdf")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"arm_move_joints", "arm_follow_trajectory", "arm_move_pose", "arm_move_relative", "gripper_move", "base_navigate", "base_drive",
		"motion_confirm", "motion_status", "motion_cancel", "robot_stop", "estop_reset", "speed_scale_set",
		"robot_describe", "joints_read", "topics_list", "topic_sample", "tools_search", "tools_invoke", "tools_batch"}
	for _, n := range want {
		if _, ok := ts.pipeline.Registry.Lookup(n); !ok {
			t.Errorf("contract tool %s missing", n)
		}
	}
	for _, tl := range ts.pipeline.Registry.Tools() {
		if err := bridge.CheckContract(tl); err != nil {
			t.Error(err)
		}
	}
	// Every shipped config's catalogue keeps it too: the actuator enum of
	// a dual-arm cell, a kind with no tools, the ROS 2 transport's set.
	for cfg, urdf := range map[string]string{"sim-arm-only.yaml": "simrobot.urdf", "sim-base-only.yaml": "simrobot.urdf",
		"sim-dual-arm.yaml": "simrobot-dual-arm.urdf", "sim-ros2.yaml": "simrobot.urdf"} {
		ts, err := offlineTools("../../launch/robots/"+cfg, "../../launch/"+urdf)
		if err != nil {
			t.Fatalf("%s: %v", cfg, err)
		}
		for _, tl := range ts.pipeline.Registry.Tools() {
			if err := bridge.CheckContract(tl); err != nil {
				t.Errorf("%s: %v", cfg, err)
			}
		}
	}
}
