package bridge

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestQuickCallsAreRecognisedByToolName(t *testing.T) {
	a := newAdmission(func(name string) bool { return name == "joints_read" })
	for _, tc := range []struct {
		name, body string
		want       bool
	}{
		{"quick tool", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"joints_read","arguments":{}}}`, true},
		{"through tools_invoke", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"tools_invoke","arguments":{"name":"joints_read","arguments":{}}}}`, true},
		{"stop", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"robot_stop","arguments":{"reason":"x"}}}`, false},
		{"stop through tools_invoke", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"tools_invoke","arguments":{"name":"robot_stop"}}}`, false},
		{"another method", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, false},
		{"initialize", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}`, false},
		{"malformed", `{"method":"tools/call","params":{"name":"joints_read"`, false},
		{"name of the wrong type", `{"method":"tools/call","params":{"name":7}}`, false},
		{"batch", `[{"method":"tools/call","params":{"name":"joints_read"}}]`, false},
		// Keys as the MCP server reads them: exact and once.
		{"method in another case", `{"method":"ping","METHOD":"tools/call","params":{"name":"joints_read"}}`, false},
		{"name in another case", `{"method":"tools/call","params":{"Name":"joints_read"}}`, false},
		{"repeated name", `{"method":"tools/call","params":{"name":"robot_stop","name":"joints_read"}}`, false},
		{"trailing data", `{"method":"tools/call","params":{"name":"joints_read"}} {}`, false},
		{"too large to classify", `{"method":"tools/call","params":{"name":"joints_read","arguments":{"pad":"` + strings.Repeat("x", quickBodyMax) + `"}}}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			call := parseToolCall([]byte(tc.body))
			if got := call != nil && a.isQuick(call); got != tc.want {
				t.Errorf("quick = %v, want %v", got, tc.want)
			}
		})
	}
}

// While every slot is held by a quick call, another quick call waits and a
// stop goes through; the waiting one runs when a slot frees, its body intact.
func TestStopIsNotQueuedBehindQuickCalls(t *testing.T) {
	a := newAdmission(func(name string) bool { return name == "joints_read" })
	release := make(chan struct{})
	var mu sync.Mutex
	var reached []string
	h := a.wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		reached = append(reached, string(b))
		mu.Unlock()
		if strings.Contains(string(b), "joints_read") {
			<-release
		}
	}), 1<<20)
	count := func(sub string) int {
		mu.Lock()
		defer mu.Unlock()
		n := 0
		for _, b := range reached {
			if strings.Contains(b, sub) {
				n++
			}
		}
		return n
	}
	post := func(ctx context.Context, body string) {
		r := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(body)).WithContext(ctx)
		h.ServeHTTP(httptest.NewRecorder(), r)
	}
	read := func(i int) string {
		return `{"method":"tools/call","params":{"name":"joints_read","arguments":{"i":` + strconv.Itoa(i) + `}}}`
	}
	slots := cap(a.slots)
	var wg sync.WaitGroup
	for i := range slots + 1 {
		wg.Add(1)
		go func() { defer wg.Done(); post(context.Background(), read(i)) }()
	}
	waitUntil(t, "every slot taken", func() bool { return count("joints_read") == slots })

	// A queued reader that leaves never runs.
	leaving, leave := context.WithCancel(context.Background())
	left := make(chan struct{})
	go func() {
		defer close(left)
		post(leaving, `{"method":"tools/call","params":{"name":"joints_read","arguments":{"who":"leaver"}}}`)
	}()

	post(context.Background(), `{"method":"tools/call","params":{"name":"robot_stop","arguments":{"reason":"r"}}}`)
	if count("robot_stop") != 1 {
		t.Fatal("robot_stop did not reach the server while reads held every slot")
	}
	if n := count("joints_read"); n != slots {
		t.Fatalf("%d reads reached the server, want %d (the rest queued)", n, slots)
	}
	leave()
	<-left
	close(release)
	wg.Wait()
	if n := count(`"i":`); n != slots+1 {
		t.Errorf("%d reads ran, want %d", n, slots+1)
	}
	if count("leaver") != 0 {
		t.Error("a read whose client left while queued still ran")
	}
	if count(read(slots)) != 1 {
		t.Errorf("the queued read's body did not arrive intact: %q", reached)
	}
}

// Quick calls run one fewer at a time than there are CPUs (one at least):
// with every read slot taken, a core is still free for what admission
// never holds (the stop lane, cancels, confirms), so the stop's goroutine
// does not wait in the scheduler behind read handlers.
func TestQuickCallsLeaveACPUForWhatIsNeverHeld(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, procs := range []int{1, 2, 4, 16} {
		runtime.GOMAXPROCS(procs)
		n := cap(newAdmission(func(string) bool { return true }).slots)
		if n < 1 || (procs > 1 && n >= procs) {
			t.Errorf("GOMAXPROCS %d: %d quick calls at a time, want 1..%d", procs, n, max(1, procs-1))
		}
	}
}

func waitUntil(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting: %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// With no body limit of its own (0: the SDK's default; negative: none)
// admission hands every request on untouched.
func TestNoBodyLimitPassesRequestsThrough(t *testing.T) {
	for _, limit := range []int64{0, -1} {
		var got string
		h := newAdmission(func(string) bool { return true }).wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			b, _ := io.ReadAll(r.Body)
			got = string(b)
		}), limit)
		body := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}`
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(body)))
		if got != body {
			t.Errorf("limit %d: the server got %q, want the body unchanged", limit, got)
		}
	}
}
