package test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// clientEntry is one server entry of a client configuration in the docs:
// a URL with headers, or a command with arguments and environment.
type clientEntry struct {
	Type    string            `json:"type"`
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers"`
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
}

// clientPages are where client configurations are shown: the README's
// "Connecting a client" section and all of docs/clients.md.
var clientPages = []struct{ file, section string }{
	{"../README.md", "Connecting a client"},
	{"../docs/clients.md", ""},
}

// docClientEntries parses every JSON block of clientPages, and the one the
// demo prints to paste, and returns the server entries, whatever the
// client's key for them (mcpServers, servers).
func docClientEntries(t *testing.T) []clientEntry {
	t.Helper()
	var out []clientEntry
	demo, err := os.ReadFile("../scripts/demo.sh")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^\s*(\{"mcpServers".*\})\s*$`).FindSubmatch(demo)
	if m == nil {
		t.Fatal("scripts/demo.sh prints no client configuration to paste")
	}
	var printed map[string]map[string]clientEntry
	if err := json.Unmarshal([]byte(strings.ReplaceAll(string(m[1]), "$listen", "127.0.0.1:8765")), &printed); err != nil {
		t.Fatalf("scripts/demo.sh's client configuration is not JSON: %v\n%s", err, m[1])
	}
	for _, e := range printed["mcpServers"] {
		out = append(out, e)
	}
	for _, p := range clientPages {
		b, err := os.ReadFile(p.file)
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		if p.section != "" {
			_, section, ok := strings.Cut(text, "\n## "+p.section+"\n")
			if !ok {
				t.Fatalf("%s has no %q section", p.file, p.section)
			}
			text, _, _ = strings.Cut(section, "\n## ")
		}
		blocks := regexp.MustCompile("(?s)```json\n(.*?)```").FindAllStringSubmatch(text, -1)
		if len(blocks) == 0 {
			t.Fatalf("%s shows no client configuration", p.file)
		}
		for _, m := range blocks {
			var doc map[string]map[string]clientEntry
			var raw map[string]json.RawMessage
			if err := json.Unmarshal([]byte(m[1]), &raw); err != nil {
				t.Fatalf("%s: block is not JSON: %v\n%s", p.file, err, m[1])
			}
			delete(raw, "inputs") // VS Code's prompts, not servers
			b, _ := json.Marshal(raw)
			if err := json.Unmarshal(b, &doc); err != nil {
				t.Fatalf("%s: block is not a server map: %v\n%s", p.file, err, m[1])
			}
			for _, servers := range doc {
				for _, e := range servers {
					out = append(out, e)
				}
			}
		}
	}
	return out
}

// fill replaces the docs' placeholders: ${...} variables with the
// planner token, the demo address with the test bridge's, the example
// install path with this checkout.
func fill(s, root, addr string) string {
	s = regexp.MustCompile(`\$\{[^}]+\}`).ReplaceAllString(s, plannerToken)
	s = strings.ReplaceAll(s, "127.0.0.1:8765", addr)
	s = strings.ReplaceAll(s, "/opt/actbridge/bin/actbridge", filepath.Join(binDir, "actbridge"))
	return strings.ReplaceAll(s, "/opt/actbridge", root)
}

// TestEveryClientConfigurationInTheDocsConnects connects with each entry
// to a bridge on the simulated robot over ROS 2, as on the demo: a stdio
// entry must start the bridge on the ROS 2 demo's config, and none may
// carry ROS 1's environment.
func TestEveryClientConfigurationInTheDocsConnects(t *testing.T) {
	entries := docClientEntries(t)
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	w := newWorld(t, worldOpts{tr: ros2, bridgeEnv: []string{"ACTBRIDGE_PLANNER_TOKEN=" + plannerToken, "ACTBRIDGE_OPERATOR_TOKEN=" + operatorToken}})
	// HTTP entries with a token reach the running bridge, which requires
	// tokens; entries without one reach it restarted as the demo runs it,
	// without tokens; then it stops, because a stdio entry starts a bridge
	// of its own on the same robot.
	slices.SortStableFunc(entries, func(a, b clientEntry) int { return phase(a) - phase(b) })
	var kinds []string
	tried := map[string]bool{}
	tokens := true
	for i, e := range entries {
		key, _ := json.Marshal(e)
		if tried[string(key)] {
			continue
		}
		tried[string(key)] = true
		if phase(e) == 1 && tokens {
			w.bridge.Stop(syscall.SIGTERM)
			w.startBridge(worldOpts{})
			tokens = false
		}
		for k := range e.Env {
			if strings.HasPrefix(k, "ROS_MASTER") || k == "ROS_HOSTNAME" || k == "ROS_IP" {
				t.Errorf("entry %s: sets ROS 1's %s; the demo is ROS 2", key, k)
			}
		}
		var transport mcp.Transport
		switch {
		case e.URL != "":
			kinds = append(kinds, "http")
			if e.Type != "" && e.Type != "http" {
				t.Fatalf("entry %s: type %q", key, e.Type)
			}
			headers := map[string]string{}
			for k, v := range e.Headers {
				headers[k] = fill(v, root, w.addr)
			}
			transport = &mcp.StreamableClientTransport{Endpoint: fill(e.URL, root, w.addr), HTTPClient: headerClient(headers)}
		case e.Command != "":
			kinds = append(kinds, "stdio")
			w.bridge.Stop(syscall.SIGTERM)
			args := make([]string, len(e.Args))
			for i, a := range e.Args {
				args[i] = fill(a, root, w.addr)
			}
			if i := slices.Index(args, "--config"); i < 0 || i+1 == len(args) || args[i+1] != filepath.Join(root, "launch/robots/sim-ros2.yaml") {
				t.Fatalf("entry %s: does not start the bridge on the ROS 2 demo's config", key)
			}
			// The test's own store and a free port (a demo may hold
			// 8765); the rest is the page's.
			if !slices.Contains(args, "--data-dir") {
				args = append(args, "--data-dir", t.TempDir())
			} else {
				args[slices.Index(args, "--data-dir")+1] = t.TempDir()
			}
			args = append(args, "--listen", "127.0.0.1:0")
			cmd := exec.Command(fill(e.Command, root, w.addr), args...)
			cmd.Env = os.Environ()
			for k, v := range e.Env {
				if k != "ROS_DOMAIN_ID" { // the test's domain, not the demo's
					cmd.Env = append(cmd.Env, k+"="+v)
				}
			}
			cmd.Env = append(cmd.Env, w.env()...)
			transport = &mcp.CommandTransport{Command: cmd}
		default:
			t.Fatalf("entry %s names neither a url nor a command", key)
		}
		t.Run(fmt.Sprintf("%d %s", i, kinds[len(kinds)-1]), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "docs", Version: "1"}, nil).Connect(ctx, transport, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "robot_describe", Arguments: map[string]any{}})
			if err != nil || res.IsError {
				t.Fatalf("%s: robot_describe: %v %+v", key, err, res)
			}
			var d struct {
				MasterReachable bool `json:"master_reachable"`
			}
			b, _ := json.Marshal(res.StructuredContent)
			if json.Unmarshal(b, &d) != nil || !d.MasterReachable {
				t.Fatalf("%s: the bridge does not reach the robot: %s", key, b)
			}
		})
	}
	if !slices.Contains(kinds, "http") || !slices.Contains(kinds, "stdio") {
		t.Fatalf("the docs' blocks cover %v, want both http and stdio", kinds)
	}
}

// phase orders the entries: HTTP with a token, HTTP without, stdio.
func phase(e clientEntry) int {
	switch {
	case e.URL == "":
		return 2
	case e.Headers["Authorization"] == "":
		return 1
	}
	return 0
}

// headerClient sends the given headers on every request.
func headerClient(h map[string]string) *http.Client {
	return &http.Client{Transport: headers(h)}
}

type headers map[string]string

func (h headers) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range h {
		r.Header.Set(k, v)
	}
	return http.DefaultTransport.RoundTrip(r)
}
