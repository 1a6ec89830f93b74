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

// clientEntry is one server entry of a client configuration in the README:
// a URL with headers, or a command with arguments and environment.
type clientEntry struct {
	Type    string            `json:"type"`
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers"`
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
}

// readmeClientEntries parses every JSON block of the README's "Connecting a
// client" section and returns the server entries, whatever the client's
// key for them (mcpServers, servers).
func readmeClientEntries(t *testing.T) []clientEntry {
	t.Helper()
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(b), "\n## Connecting a client\n")
	if !ok {
		t.Fatal("README has no \"Connecting a client\" section")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	var out []clientEntry
	for _, m := range regexp.MustCompile("(?s)```json\n(.*?)```").FindAllStringSubmatch(section, -1) {
		var doc map[string]map[string]clientEntry
		var raw map[string]json.RawMessage
		if err := json.Unmarshal([]byte(m[1]), &raw); err != nil {
			t.Fatalf("README block is not JSON: %v\n%s", err, m[1])
		}
		delete(raw, "inputs") // VS Code's prompts, not servers
		b, _ := json.Marshal(raw)
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatalf("README block is not a server map: %v\n%s", err, m[1])
		}
		for _, servers := range doc {
			for _, e := range servers {
				out = append(out, e)
			}
		}
	}
	return out
}

// fill replaces the README's placeholders: ${...} variables with the
// planner token, the demo address with the test bridge's, the example
// install path with this checkout.
func fill(s, root, addr string) string {
	s = regexp.MustCompile(`\$\{[^}]+\}`).ReplaceAllString(s, plannerToken)
	s = strings.ReplaceAll(s, "127.0.0.1:8765", addr)
	s = strings.ReplaceAll(s, "/opt/actbridge/bin/actbridge", filepath.Join(binDir, "actbridge"))
	return strings.ReplaceAll(s, "/opt/actbridge", root)
}

func TestEveryClientConfigurationInTheREADMEConnects(t *testing.T) {
	entries := readmeClientEntries(t)
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	w := newWorld(t, worldOpts{bridgeEnv: []string{"ACTBRIDGE_PLANNER_TOKEN=" + plannerToken, "ACTBRIDGE_OPERATOR_TOKEN=" + operatorToken}})
	// HTTP entries reach the running bridge; then it stops, because a stdio
	// entry starts a bridge of its own, under the same ROS node name.
	slices.SortStableFunc(entries, func(a, b clientEntry) int { return strings.Compare(b.URL, a.URL) })
	var kinds []string
	tried := map[string]bool{}
	for i, e := range entries {
		key, _ := json.Marshal(e)
		if tried[string(key)] {
			continue
		}
		tried[string(key)] = true
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
			// The test's own store, a free port (a demo may hold 8765) and
			// time for the master; the rest is the README's.
			if !slices.Contains(args, "--data-dir") {
				args = append(args, "--data-dir", t.TempDir())
			} else {
				args[slices.Index(args, "--data-dir")+1] = t.TempDir()
			}
			args = append(args, "--listen", "127.0.0.1:0", "--wait-master", "20s")
			cmd := exec.Command(fill(e.Command, root, w.addr), args...)
			cmd.Env = append(os.Environ(), w.master.Env()...)
			for k, v := range e.Env {
				if k != "ROS_MASTER_URI" { // the test's master, not the demo's port
					cmd.Env = append(cmd.Env, k+"="+v)
				}
			}
			transport = &mcp.CommandTransport{Command: cmd}
		default:
			t.Fatalf("entry %s names neither a url nor a command", key)
		}
		t.Run(fmt.Sprintf("%d %s", i, kinds[len(kinds)-1]), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "readme", Version: "1"}, nil).Connect(ctx, transport, nil)
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
		t.Fatalf("the README's blocks cover %v, want both http and stdio", kinds)
	}
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
