package test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/actbridge/actbridge/ros1/rostest"

	"github.com/actbridge/actbridge/test/bridgetest"
)

// The safety scenario suite: each file under testdata/scenarios is one
// family of tool-call sequences with expected answers, replayed against a
// real rosmaster + simrobot + actbridge. A call marked `unsafe` passes only
// if it is refused AND the sim's goal counter shows nothing reached the
// robot; a call marked `moves` passes only if exactly one goal did.
//
// Directives (one per line; blank lines and # comments ignored):
//
//	policy ACTUATOR=planner|operator   before the first call: bridge config
//	sim FLAG ...                       before the first call: simrobot flags
//	transports ros1|ros2 ...           run over these transports only (default: all)
//	as planner|operator                who calls from now on (bearer token)
//	call TOOL {json}                   $NAME in the json is replaced by a saved value
//	expect ok [key=value ...]          the call succeeded; top-level fields match
//	expect error CODE [key=value ...]  the call failed with CODE
//	let NAME = field                   save a top-level field of the last result
//	unsafe | moves                     goal-counter checks on the last call
//	                                   (unsafe: refused, or a replay, and no goal on the wire)
//	wait NAME STATE                    poll motion_status of motion $NAME until STATE
//	parallel / call ... / end          run the calls concurrently
//	expect oks=N [errors=CODE]         after a parallel block
//	sleep SECONDS
const plannerToken, operatorToken = "planner-secret-token", "operator-secret-token"

type scenarioStats struct {
	mu                         sync.Mutex
	unsafeTried, unsafeReached int
	safeTried, safeExecuted    int
}

func TestSafetyScenarios(t *testing.T) {
	files, _ := filepath.Glob("testdata/scenarios/*.txt")
	if len(files) == 0 {
		t.Fatal("no scenario files")
	}
	eachTransport(t, func(t *testing.T, tr transport) {
		stats := &scenarioStats{}
		for _, f := range files {
			t.Run(strings.TrimSuffix(filepath.Base(f), ".txt"), func(t *testing.T) { runScenario(t, tr, f, stats) })
		}
		t.Logf("safety scenarios over %s: unsafe requests tried %d, reached the robot %d (target 0); safe motions tried %d, executed %d (target all)",
			tr, stats.unsafeTried, stats.unsafeReached, stats.safeTried, stats.safeExecuted)
		if stats.unsafeReached != 0 || stats.safeExecuted != stats.safeTried {
			t.Fatal("scenario totals missed their targets")
		}
	})
}

var varRE = regexp.MustCompile(`\$[A-Za-z_][A-Za-z0-9_]*`)

func runScenario(t *testing.T, tr transport, file string, stats *scenarioStats) {
	lines := readLines(t, file)
	opts := worldOpts{tr: tr, bridgeEnv: []string{"ACTBRIDGE_PLANNER_TOKEN=" + plannerToken, "ACTBRIDGE_OPERATOR_TOKEN=" + operatorToken}}
	policy := map[string]string{}
	for _, l := range lines {
		if f := strings.Fields(l.text); len(f) == 2 && f[0] == "policy" {
			k, v, _ := strings.Cut(f[1], "=")
			policy[k] = v
		} else if f[0] == "sim" {
			opts.simArgs = append(opts.simArgs, f[1:]...)
		} else if f[0] == "transports" && !slices.Contains(f[1:], string(tr)) {
			t.Skipf("%s:%d: runs over %s only", file, l.n, strings.Join(f[1:], ", "))
		}
	}
	if len(policy) > 0 {
		opts.config = configWithPolicy(t, tr, policy)
	}
	w := newWorld(t, opts)
	clients := map[string]*mcp.ClientSession{"planner": w.mcpClient(plannerToken), "operator": w.mcpClient(operatorToken)}
	who := "planner"
	vars := map[string]string{}
	var last map[string]any
	var lastErr bool
	var lastBefore int
	type pcall struct{ tool, args string }
	var par []pcall
	inPar := false
	var parOut []map[string]any
	var parErr []bool
	expand := func(s string) string {
		return varRE.ReplaceAllStringFunc(s, func(v string) string {
			val, ok := vars[v[1:]]
			if !ok {
				t.Fatalf("%s: unknown variable %s", file, v)
			}
			return val
		})
	}
	for _, l := range lines {
		at := fmt.Sprintf("%s:%d", file, l.n)
		f := strings.Fields(l.text)
		switch f[0] {
		case "policy", "sim", "transports":
		case "as":
			who = f[1]
		case "sleep":
			var s float64
			fmt.Sscan(f[1], &s)
			time.Sleep(time.Duration(s * float64(time.Second)))
		case "parallel":
			inPar, par = true, nil
		case "end":
			inPar = false
			lastBefore = w.goalsReceived()
			parOut, parErr = make([]map[string]any, len(par)), make([]bool, len(par))
			var wg sync.WaitGroup
			for i, pc := range par {
				wg.Add(1)
				go func() {
					defer wg.Done()
					var args map[string]any
					_ = json.Unmarshal([]byte(pc.args), &args)
					out, err := callQuiet(clients[who], pc.tool, args)
					if err != nil {
						out = map[string]any{"code": "transport: " + err.Error()}
					}
					parOut[i], parErr[i] = out, out["code"] != nil
				}()
			}
			wg.Wait()
		case "call":
			tool := f[1]
			args := expand(strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(l.text, "call"), " "+tool)))
			if inPar {
				par = append(par, pcall{tool, args})
				continue
			}
			var a map[string]any
			if err := json.Unmarshal([]byte(args), &a); err != nil {
				t.Fatalf("%s: bad json %v", at, err)
			}
			lastBefore = w.goalsReceived()
			last, lastErr = bridgetest.Call(t, clients[who], tool, a)
		case "expect":
			if strings.HasPrefix(f[1], "oks=") {
				oks := 0
				for _, e := range parErr {
					if !e {
						oks++
					}
				}
				if fmt.Sprint(oks) != strings.TrimPrefix(f[1], "oks=") {
					t.Fatalf("%s: %d parallel calls succeeded: %v", at, oks, parOut)
				}
				for _, kv := range f[2:] {
					if code, ok := strings.CutPrefix(kv, "errors="); ok {
						for i, e := range parErr {
							if e && parOut[i]["code"] != code {
								t.Fatalf("%s: parallel error %v, want %s", at, parOut[i], code)
							}
						}
					}
				}
				continue
			}
			kvs := f[2:]
			if f[1] == "ok" {
				if lastErr {
					t.Fatalf("%s: expected ok, got %v", at, last)
				}
				kvs = f[2:]
			} else {
				if !lastErr || last["code"] != f[2] {
					t.Fatalf("%s: expected error %s, got %v", at, f[2], last)
				}
				kvs = f[3:]
			}
			for _, kv := range kvs {
				k, v, _ := strings.Cut(kv, "=")
				if got := fmt.Sprint(last[k]); got != expand(v) {
					t.Fatalf("%s: %s=%s, want %s (%v)", at, k, got, v, last)
				}
			}
		case "let":
			v, ok := last[f[3]]
			if !ok {
				t.Fatalf("%s: no field %s in %v", at, f[3], last)
			}
			vars[f[1]] = fmt.Sprint(v)
		case "unsafe":
			stats.mu.Lock()
			stats.unsafeTried++
			stats.mu.Unlock()
			time.Sleep(300 * time.Millisecond) // a goal in flight would land by now
			// Refused, or answered without acting: a replayed confirm returns
			// the motion it already ran, a batch reports its item's refusal.
			refused := lastErr || last["replay"] == true || last["all_ok"] == false
			if !refused && len(par) == 0 {
				t.Errorf("%s: unsafe request was not refused: %v", at, last)
			}
			if got := w.goalsReceived(); got != lastBefore {
				stats.mu.Lock()
				stats.unsafeReached++
				stats.mu.Unlock()
				t.Errorf("%s: unsafe request reached the robot (%d goals)", at, got-lastBefore)
			}
		case "moves":
			stats.mu.Lock()
			stats.safeTried++
			stats.mu.Unlock()
			ok := false
			rostest.Eventually(t, 10*time.Second, at+": goal reaches the sim", func() error {
				if w.goalsReceived() >= lastBefore+1 {
					return nil
				}
				return fmt.Errorf("no goal yet")
			})
			if w.goalsReceived() == lastBefore+1 {
				ok = true
			}
			if ok {
				stats.mu.Lock()
				stats.safeExecuted++
				stats.mu.Unlock()
			} else {
				t.Errorf("%s: safe motion sent %d goals", at, w.goalsReceived()-lastBefore)
			}
		case "wait":
			id := vars[f[1]]
			rostest.Eventually(t, 60*time.Second, at+": motion "+f[2], func() error {
				st := bridgetest.MustCall(t, clients[who], "motion_status", map[string]any{"motion_id": id, "wait_s": 3})
				if st["state"] != f[2] {
					return errState(st)
				}
				return nil
			})
		default:
			t.Fatalf("%s: unknown directive %q", at, f[0])
		}
	}
}

type line struct {
	n    int
	text string
}

func readLines(t *testing.T, file string) []line {
	fh, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	var out []line
	sc := bufio.NewScanner(fh)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 1; sc.Scan(); n++ {
		s := strings.TrimSpace(sc.Text())
		if s == "" || strings.HasPrefix(s, "#") {
			continue
		}
		out = append(out, line{n, s})
	}
	return out
}

// configWithPolicy writes a copy of the sim config of transport tr with
// per-actuator policy; an actuator the config lacks fails the test.
func configWithPolicy(t *testing.T, tr transport, policy map[string]string) string {
	b, err := os.ReadFile(defaultConfig(tr))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	cur := ""
	set := map[string]bool{}
	for i, l := range lines {
		if n, ok := strings.CutPrefix(strings.TrimSpace(l), "- name: "); ok {
			cur = n
		}
		if p, ok := policy[cur]; ok && strings.HasPrefix(strings.TrimSpace(l), "policy:") {
			lines[i] = strings.Replace(l, strings.TrimSpace(l), "policy: "+p, 1)
			set[cur] = true
		}
	}
	for a := range policy {
		if !set[a] {
			t.Fatalf("%s has no actuator %s with a policy", defaultConfig(tr), a)
		}
	}
	out := filepath.Join(t.TempDir(), "robot.yaml")
	abs, _ := filepath.Abs("../launch/joint_limits.yaml")
	text := strings.Replace(strings.Join(lines, "\n"), "limits_file: ../joint_limits.yaml", "limits_file: "+abs, 1)
	if err := os.WriteFile(out, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}
