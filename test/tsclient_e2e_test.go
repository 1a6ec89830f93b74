package test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// tsReport is what testdata/tsclient/check.mjs prints.
type tsReport struct {
	Tools []string `json:"tools"`
	Wire  []struct {
		HTTP, Method, Tool, Type string
		Status                   int
	} `json:"wire"`
	Calls map[string]struct {
		IsError    bool           `json:"isError"`
		Structured map[string]any `json:"structured"`
		Text       *string        `json:"text"`
	} `json:"calls"`
}

// tsClient installs the TypeScript SDK client (pinned by the committed
// package-lock.json) into the npm cache, once.
func tsClient(t *testing.T) string {
	t.Helper()
	haveNPM(t)
	dir, err := installTSClient()
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func installTSClient() (string, error) {
	dir, err := npmInstall("tsclient")
	if err != nil {
		return "", err
	}
	script, err := os.ReadFile(filepath.Join("testdata", "tsclient", "check.mjs"))
	if err != nil {
		return "", err
	}
	return dir, os.WriteFile(filepath.Join(dir, "check.mjs"), script, 0o644)
}

// An MCP client of another SDK (TypeScript, over streamable HTTP) gets
// what the Go SDK's client gets: every tool call answered by the one MCP
// path (the SDK's handler, its event stream), progress notifications
// where a progress token asks for them, one motion for two confirms.
func TestTypeScriptSDKClientOverHTTP(t *testing.T) {
	eachTransport(t, func(t *testing.T, tr transport) {
		dir := tsClient(t)
		w := newWorld(t, worldOpts{tr: tr})
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, "node", "check.mjs", "http://"+w.addr+"/mcp")
		cmd.Dir = dir
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("node check.mjs: %v\n%s", err, stderr.String())
		}
		var r tsReport
		if err := json.Unmarshal(out, &r); err != nil {
			t.Fatalf("report: %v\n%s", err, out)
		}
		if len(r.Tools) == 0 || !strings.Contains(strings.Join(r.Tools, " "), "motion_confirm") {
			t.Errorf("tools/list: %v", r.Tools)
		}
		c := r.Calls
		if c["joints_read"].IsError || c["joints_read"].Structured["joints"] == nil || c["joints_read"].Text == nil {
			t.Errorf("joints_read: %+v", c["joints_read"])
		}
		if c["robot_describe"].IsError || c["robot_describe"].Structured["actuators"] == nil {
			t.Errorf("robot_describe: %+v", c["robot_describe"])
		}
		if !c["refused"].IsError || c["refused"].Structured["code"] != "invalid_argument" || c["refused"].Structured["field"] != "bogus" {
			t.Errorf("refused call: %+v", c["refused"])
		}
		if c["preview"].IsError || c["preview"].Structured["preview_id"] == nil {
			t.Fatalf("base_navigate preview: %+v", c["preview"])
		}
		motion := c["confirm"].Structured["motion_id"]
		if c["confirm"].IsError || c["confirm"].Structured["state"] != "sent" || motion == nil {
			t.Errorf("confirm: %+v", c["confirm"])
		}
		if again := c["confirm_again"].Structured; again["replay"] != true || again["motion_id"] != motion {
			t.Errorf("second confirm: %+v, want a replay of %v", again, motion)
		}
		if st := c["status"].Structured; st["state"] != "succeeded" || st["terminal"] != true {
			t.Errorf("motion_status: %+v", st)
		}
		if n := w.goalsReceived(); n != 1 {
			t.Errorf("the sim received %d goals, want 1", n)
		}
		if c["with_progress"].IsError || c["stop"].IsError || c["stop"].Structured["estop_event"] == nil {
			t.Errorf("motions_list with a progress token: %+v; robot_stop: %+v", c["with_progress"], c["stop"])
		}

		types := map[string]string{}
		for _, x := range r.Wire {
			if x.Method == "tools/call" {
				mt, _, _ := strings.Cut(x.Type, ";")
				if prev, ok := types[x.Tool]; ok && prev != mt {
					mt = prev + "," + mt
				}
				types[x.Tool] = mt
			}
			if x.Status >= 400 {
				t.Errorf("HTTP %d for %s %s %s", x.Status, x.HTTP, x.Method, x.Tool)
			}
		}
		for _, tool := range []string{"joints_read", "robot_describe", "base_navigate", "motion_confirm", "motion_status", "robot_stop", "motions_list"} {
			if types[tool] != "text/event-stream" {
				t.Errorf("%s answered as %q, want text/event-stream (the MCP SDK's handler)", tool, types[tool])
			}
		}
		if last := r.Wire[len(r.Wire)-1]; last.HTTP != "DELETE" || last.Status != 204 && last.Status != 200 {
			t.Errorf("session end: %+v", last)
		}
	})
}
