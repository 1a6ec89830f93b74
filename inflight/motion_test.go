package inflight

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// walk moves motion id through states, failing the test on any refusal.
func walk(t *testing.T, s *Store, id string, states ...State) Motion {
	t.Helper()
	var m Motion
	for _, to := range states {
		var err error
		if m, err = s.Transition(context.Background(), id, to, nil); err != nil {
			t.Fatalf("walk %s → %s: %v", id, to, err)
		}
	}
	return m
}

func TestOnlyOneOfManyConcurrentClaimsCreates(t *testing.T) {
	s := openStore(t, testPath(t), Options{})
	const n = 32
	var created, existing int
	var mu sync.Mutex
	var wg sync.WaitGroup
	start := make(chan struct{})
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			m, c, err := claim(context.Background(), s, testMotion("same"))
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err != nil:
				t.Errorf("Claim: %v", err)
			case c:
				created++
			case m.State != StateDispatching:
				t.Errorf("losing Claim returned state %s", m.State)
			default:
				existing++
			}
		}()
	}
	close(start)
	wg.Wait()
	if created != 1 || existing != n-1 {
		t.Fatalf("%d concurrent Claims: %d created, %d existing; want exactly 1 created", n, created, existing)
	}
}

func TestDispatchingRecordIsDurableBeforePublish(t *testing.T) {
	path := testPath(t)
	s := openStore(t, path, Options{})
	// publish stands in for the bridge publishing the goal: at that moment,
	// the file on disk (as a crash would leave it) must hold the record.
	publish := func(m Motion) {
		snap := filepath.Join(t.TempDir(), "snapshot.db")
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(snap, b, 0o600); err != nil {
			t.Fatal(err)
		}
		ro := openStore(t, snap, Options{ReadOnly: true})
		got, err := ro.Get(m.ID)
		if err != nil || got.State != StateDispatching {
			t.Fatalf("at publish time the file holds %v, %v; want the motion in dispatching", got.State, err)
		}
	}
	m, created, err := claim(context.Background(), s, testMotion("m1"))
	if err != nil || !created {
		t.Fatalf("Claim = %v, %v", created, err)
	}
	publish(m)
}

func TestClaimedMotionSurvivesCloseAndReopen(t *testing.T) {
	path := testPath(t)
	s := openStore(t, path, Options{})
	if _, _, err := claim(context.Background(), s, testMotion("m1")); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	m, err := openStore(t, path, Options{ReadOnly: true}).Get("m1")
	if err != nil || m.State != StateDispatching {
		t.Fatalf("after reopen: %v, %v; want dispatching", m.State, err)
	}
}

const crashEnv = "INFLIGHT_TEST_CRASH_AFTER_CLAIM"

// TestClaimedMotionSurvivesAKillRightAfterClaim runs this test binary as a
// bridge that is SIGKILLed the instant Claim returns: no Close, no defer.
func TestClaimedMotionSurvivesAKillRightAfterClaim(t *testing.T) {
	if path := os.Getenv(crashEnv); path != "" {
		s, err := Open(path, Options{})
		if err != nil {
			os.Exit(3)
		}
		if _, created, err := claim(context.Background(), s, testMotion("m1")); err != nil || !created {
			os.Exit(4)
		}
		_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {}
	}
	path := testPath(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestClaimedMotionSurvivesAKillRightAfterClaim$")
	cmd.Env = append(os.Environ(), crashEnv+"="+path)
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("child did not die by SIGKILL after Claim: %v\n%s", err, out)
	}
	m, err := openStore(t, path, Options{}).Get("m1")
	if err != nil || m.State != StateDispatching {
		t.Fatalf("after the kill: %v, %v; want dispatching", m.State, err)
	}
}

func TestRetryOfAClaimedMotionNeverCreatesItAgain(t *testing.T) {
	for _, path := range [][]State{
		{},
		{StateSent},
		{StateSent, StateActive},
		{StateSent, StateActive, StateSucceeded},
		{StateUnknown},
	} {
		t.Run(fmt.Sprint(path), func(t *testing.T) {
			var commits int
			s := openStore(t, testPath(t), Options{ObserveCommit: func(time.Duration) { commits++ }})
			if _, _, err := claim(context.Background(), s, testMotion("m")); err != nil {
				t.Fatal(err)
			}
			want := walk(t, s, "m", path...).State
			if len(path) == 0 {
				want = StateDispatching
			}
			before := commits
			retry := testMotion("m")
			retry.Goal = json.RawMessage(`{"different":"goal"}`)
			m, created, err := claim(context.Background(), s, retry)
			if err != nil || created {
				t.Fatalf("retry Claim = created %v, %v; want the existing motion", created, err)
			}
			if m.State != want || string(m.Goal) != string(testMotion("m").Goal) {
				t.Errorf("retry returned state %s goal %s; want the stored %s and original goal", m.State, m.Goal, want)
			}
			if commits != before {
				t.Errorf("retry Claim committed %d times; it must write nothing", commits-before)
			}
		})
	}
}

func TestClaimRefusesIncompleteMotions(t *testing.T) {
	s := openStore(t, testPath(t), Options{})
	for name, edit := range map[string]func(*Motion){
		"no id":         func(m *Motion) { m.ID = "" },
		"no tool":       func(m *Motion) { m.Tool = "" },
		"no actuator":   func(m *Motion) { m.Actuator = "" },
		"no digest":     func(m *Motion) { m.ArgsDigest = "" },
		"no goal":       func(m *Motion) { m.Goal = nil },
		"goal not JSON": func(m *Motion) { m.Goal = json.RawMessage(`{"x":`) },
		"args not JSON": func(m *Motion) { m.Args = json.RawMessage(`nope`) },
	} {
		m := testMotion("m-" + strings.ReplaceAll(name, " ", "-"))
		edit(&m)
		if _, created, err := claim(context.Background(), s, m); !errors.Is(err, ErrInvalidRecord) || created {
			t.Errorf("%s: Claim = %v, %v; want ErrInvalidRecord", name, created, err)
		}
	}
}

func TestCancelledClaimWritesNothing(t *testing.T) {
	s := openStore(t, testPath(t), Options{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, created, err := claim(ctx, s, testMotion("m")); !errors.Is(err, context.Canceled) || created {
		t.Fatalf("Claim with a cancelled context = %v, %v", created, err)
	}
	if _, err := s.Get("m"); !errors.Is(err, ErrNotFound) {
		t.Errorf("cancelled Claim left a record: %v", err)
	}
}

func TestClaimRecordsConfirmationThenDispatch(t *testing.T) {
	c := newClock()
	s := openStore(t, testPath(t), Options{Now: c.Now})
	m, _, err := claim(context.Background(), s, testMotion("m"))
	if err != nil {
		t.Fatal(err)
	}
	want := []Transition{
		{To: StateConfirmed, At: c.Now(), Note: "confirmed by planner"},
		{From: StateConfirmed, To: StateDispatching, At: c.Now()},
	}
	if !slices.Equal(m.History, want) {
		t.Errorf("History = %+v, want %+v", m.History, want)
	}
	got, _ := s.Get("m")
	if !slices.Equal(got.History, want) || !got.CreatedAt.Equal(c.Now()) || got.Version != recordVersion {
		t.Errorf("stored record = %+v", got)
	}
}

func TestStateMachineAllowsOnlyTheDesignedMoves(t *testing.T) {
	const (
		c, d, se, a    = StateConfirmed, StateDispatching, StateSent, StateActive
		ok, ab, pr, re = StateSucceeded, StateAborted, StatePreempted, StateRejected
		rc, u          = StateRecalled, StateUnknown
	)
	all := []State{c, d, se, a, ok, ab, pr, re, rc, u}
	allowed := map[[2]State]bool{
		{c, d}:  true,
		{d, se}: true, {d, re}: true, {d, u}: true,
		{se, a}: true, {se, ok}: true, {se, ab}: true, {se, pr}: true, {se, re}: true, {se, rc}: true, {se, u}: true,
		{a, ok}: true, {a, ab}: true, {a, pr}: true, {a, u}: true,
		{u, ok}: true, {u, ab}: true, {u, pr}: true, {u, re}: true, {u, rc}: true,
	}
	for _, from := range all {
		for _, to := range all {
			if from == to {
				continue
			}
			if got := CanTransition(from, to); got != allowed[[2]State{from, to}] {
				t.Errorf("CanTransition(%s, %s) = %v", from, to, got)
			}
		}
		terminal := from == ok || from == ab || from == pr || from == re || from == rc
		if IsTerminal(from) != terminal {
			t.Errorf("IsTerminal(%s) = %v", from, !terminal)
		}
	}
}

func TestTerminalStatesAreFinal(t *testing.T) {
	paths := map[State][]State{
		StateSucceeded: {StateSent, StateActive, StateSucceeded},
		StateAborted:   {StateSent, StateActive, StateAborted},
		StatePreempted: {StateSent, StatePreempted},
		StateRejected:  {StateRejected},
		StateRecalled:  {StateSent, StateRecalled},
	}
	for final, path := range paths {
		t.Run(string(final), func(t *testing.T) {
			c := newClock()
			s := openStore(t, testPath(t), Options{Now: c.Now})
			ctx := context.Background()
			if _, _, err := claim(ctx, s, testMotion("m")); err != nil {
				t.Fatal(err)
			}
			done := walk(t, s, "m", path...)
			c.Advance(time.Minute)

			called := false
			again, err := s.Transition(ctx, "m", final, func(m *Motion) { called = true; m.ErrorText = "late" })
			if err != nil || called || !again.UpdatedAt.Equal(done.UpdatedAt) || len(again.History) != len(done.History) || again.ErrorText != "" {
				t.Errorf("repeating %s: err %v, mutate called %v, record %+v; want a no-op", final, err, called, again)
			}
			for _, other := range []State{StateSucceeded, StateAborted, StateActive, StateUnknown, StateDispatching} {
				if other == final {
					continue
				}
				cur, err := s.Transition(ctx, "m", other, nil)
				if !errors.Is(err, ErrInvalidTransition) || cur.State != final {
					t.Errorf("%s → %s = %s, %v; want ErrInvalidTransition and the current record", final, other, cur.State, err)
				}
			}
		})
	}
}

func TestUnknownMotionResolvesWhenTheRobotReportsLater(t *testing.T) {
	s := openStore(t, testPath(t), Options{})
	if _, _, err := claim(context.Background(), s, testMotion("m")); err != nil {
		t.Fatal(err)
	}
	m := walk(t, s, "m", StateUnknown, StateSucceeded)
	got := []State{}
	for _, h := range m.History {
		got = append(got, h.To)
	}
	want := []State{StateConfirmed, StateDispatching, StateUnknown, StateSucceeded}
	if !slices.Equal(got, want) {
		t.Errorf("history %v, want %v", got, want)
	}
	if _, err := s.Transition(context.Background(), "m", StateUnknown, nil); !errors.Is(err, ErrInvalidTransition) {
		t.Errorf("succeeded → unknown = %v", err)
	}
}

func TestTransitionKeepsIdentityAndRecordsTheStep(t *testing.T) {
	c := newClock()
	s := openStore(t, testPath(t), Options{Now: c.Now})
	ctx := context.Background()
	orig, _, err := claim(ctx, s, testMotion("m"))
	if err != nil {
		t.Fatal(err)
	}
	walk(t, s, "m", StateSent)
	c.Advance(time.Second)
	m, err := s.Transition(ctx, "m", StateAborted, func(m *Motion) {
		m.ID, m.Tool, m.Goal, m.Role, m.Via = "other", "other_tool", json.RawMessage(`{}`), "intruder", "console"
		m.CreatedAt = time.Time{}
		m.History[0].Note = "rewritten"
		m.History = nil
		m.Progress = 1.7
		m.Result = json.RawMessage(`{"error_code":-4}`)
		m.ErrorText = "goal tolerance violated"
		m.Note = "status 4 from the server"
	})
	if err != nil {
		t.Fatal(err)
	}
	stored, _ := s.Get("m")
	for name, got := range map[string]Motion{"returned": m, "stored": stored} {
		if got.ID != "m" || got.Tool != orig.Tool || string(got.Goal) != string(orig.Goal) || got.Role != orig.Role || got.Via != orig.Via || !got.CreatedAt.Equal(orig.CreatedAt) {
			t.Errorf("%s: identity changed: %+v", name, got)
		}
		if got.Progress != 1 || string(got.Result) != `{"error_code":-4}` || got.ErrorText != "goal tolerance violated" {
			t.Errorf("%s: results = %v %s %q", name, got.Progress, got.Result, got.ErrorText)
		}
		last := got.History[len(got.History)-1]
		want := Transition{From: StateSent, To: StateAborted, At: c.Now(), Note: "status 4 from the server"}
		if last != want || got.History[0].Note != "confirmed by planner" || len(got.History) != 4 {
			t.Errorf("%s: history = %+v", name, got.History)
		}
		if got.Note != "" || !got.UpdatedAt.Equal(c.Now()) {
			t.Errorf("%s: note %q updated %v", name, got.Note, got.UpdatedAt)
		}
	}
}

func TestProgressUpdateOfAnOpenMotionAddsNoHistory(t *testing.T) {
	s := openStore(t, testPath(t), Options{})
	ctx := context.Background()
	if _, _, err := claim(ctx, s, testMotion("m")); err != nil {
		t.Fatal(err)
	}
	before := walk(t, s, "m", StateSent, StateActive)
	for _, p := range []float64{0.25, 0.5, -3} {
		m, err := s.Transition(ctx, "m", StateActive, func(m *Motion) { m.Progress = p })
		if err != nil {
			t.Fatal(err)
		}
		if want := max(p, 0); m.Progress != want || len(m.History) != len(before.History) {
			t.Errorf("progress %v: got %v with %d history entries (want %d)", p, m.Progress, len(m.History), len(before.History))
		}
	}
}

func TestTransitionRefusesUnknownMotionsAndStates(t *testing.T) {
	s := openStore(t, testPath(t), Options{})
	ctx := context.Background()
	if _, err := s.Transition(ctx, "nope", StateSent, nil); !errors.Is(err, ErrNotFound) {
		t.Errorf("missing motion: %v", err)
	}
	if _, _, err := claim(ctx, s, testMotion("m")); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Transition(ctx, "m", State("flying"), nil); !errors.Is(err, ErrInvalidTransition) {
		t.Errorf("made-up state: %v", err)
	}
	if _, err := s.Transition(ctx, "m", StateSent, func(m *Motion) { m.Result = json.RawMessage(`{`) }); !errors.Is(err, ErrInvalidRecord) {
		t.Errorf("invalid result JSON: %v", err)
	}
	if m, _ := s.Get("m"); m.State != StateDispatching {
		t.Errorf("a refused transition changed the state to %s", m.State)
	}
}

func TestNonTerminalListsEveryMotionToReattach(t *testing.T) {
	c := newClock()
	s := openStore(t, testPath(t), Options{Now: c.Now})
	ctx := context.Background()
	paths := []struct {
		id   string
		path []State
	}{
		{"a-dispatching", nil},
		{"b-done", []State{StateSent, StateSucceeded}},
		{"c-active", []State{StateSent, StateActive}},
		{"d-unknown", []State{StateUnknown}},
		{"e-rejected", []State{StateRejected}},
		{"f-sent", []State{StateSent}},
	}
	for _, p := range paths {
		c.Advance(time.Second)
		if _, _, err := claim(ctx, s, testMotion(p.id)); err != nil {
			t.Fatal(err)
		}
		walk(t, s, p.id, p.path...)
	}
	open, err := s.NonTerminal()
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, m := range open {
		ids = append(ids, m.ID)
	}
	if want := []string{"a-dispatching", "c-active", "d-unknown", "f-sent"}; !slices.Equal(ids, want) {
		t.Errorf("NonTerminal = %v, want %v", ids, want)
	}
}

func TestListPagesInCreationOrderWithAStableCursor(t *testing.T) {
	c := newClock()
	s := openStore(t, testPath(t), Options{Now: c.Now})
	ctx := context.Background()
	claim := func(id, actuator string, path ...State) {
		m := testMotion(id)
		m.Actuator = actuator
		if _, _, err := claim(ctx, s, m); err != nil {
			t.Fatal(err)
		}
		walk(t, s, id, path...)
	}
	claim("m1", ActuatorArm)
	c.Advance(time.Second)
	claim("m3", ActuatorBase, StateSent, StateActive) // same instant as m2: id breaks the tie
	claim("m2", ActuatorArm, StateSent, StateSucceeded)
	c.Advance(time.Second)
	claim("m4", ActuatorGripper, StateSent, StateActive)
	claim("m5", ActuatorArm, StateSent, StateActive)

	cases := []struct {
		name   string
		filter Filter
		limit  int
		want   []string
	}{
		{"everything", Filter{}, 2, []string{"m1", "m2", "m3", "m4", "m5"}},
		{"one page", Filter{}, 0, []string{"m1", "m2", "m3", "m4", "m5"}},
		{"arm only", Filter{Actuator: ActuatorArm}, 2, []string{"m1", "m2", "m5"}},
		{"active", Filter{States: []State{StateActive}}, 1, []string{"m3", "m4", "m5"}},
		{"active arm", Filter{States: []State{StateActive}, Actuator: ActuatorArm}, 5, []string{"m5"}},
		{"open", Filter{States: []State{StateDispatching, StateActive}}, 3, []string{"m1", "m3", "m4", "m5"}},
		{"nothing", Filter{Actuator: "head"}, 3, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			cursor := ""
			for pages := 0; ; pages++ {
				items, total, next, err := s.List(tc.filter, cursor, tc.limit)
				if err != nil {
					t.Fatal(err)
				}
				if total != len(tc.want) {
					t.Errorf("total = %d, want %d", total, len(tc.want))
				}
				if tc.limit > 0 && len(items) > tc.limit {
					t.Errorf("page of %d items exceeds limit %d", len(items), tc.limit)
				}
				for _, m := range items {
					got = append(got, m.ID)
				}
				if next == "" || pages > 10 {
					break
				}
				cursor = next
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("pages = %v, want %v", got, tc.want)
			}
		})
	}

	// A motion created mid-pagination appears once, at the end.
	items, _, next, err := s.List(Filter{}, "", 2)
	if err != nil || len(items) != 2 {
		t.Fatal(items, err)
	}
	c.Advance(time.Second)
	claim("m0", ActuatorArm)
	var rest []string
	for cursor := next; cursor != ""; {
		var page []Motion
		page, _, cursor, err = s.List(Filter{}, cursor, 2)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range page {
			rest = append(rest, m.ID)
		}
	}
	if want := []string{"m3", "m4", "m5", "m0"}; !slices.Equal(rest, want) {
		t.Errorf("after a new motion, remaining pages = %v, want %v", rest, want)
	}
}

func TestListRefusesCursorsItDidNotIssue(t *testing.T) {
	s := openStore(t, testPath(t), Options{})
	for i := range 3 {
		if err := s.appendOne(context.Background(), AuditRecord{Tool: fmt.Sprint("t", i)}); err != nil {
			t.Fatal(err)
		}
	}
	_, auditCursor, err := s.AuditList("", 1)
	if err != nil || auditCursor == "" {
		t.Fatal(auditCursor, err)
	}
	for name, cursor := range map[string]string{
		"not base64":      "!!!",
		"empty key":       encodeCursor(cursorMotions, nil),
		"short key":       encodeCursor(cursorMotions, []byte("12345678")),
		"an audit cursor": auditCursor,
		"padded base64":   "bQ==",
	} {
		if _, _, _, err := s.List(Filter{}, cursor, 10); !errors.Is(err, ErrBadCursor) {
			t.Errorf("%s: List = %v, want ErrBadCursor", name, err)
		}
	}
}

func BenchmarkClaim(b *testing.B) {
	s := openStore(b, testPath(b), Options{})
	ctx := context.Background()
	m := testMotion("")
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		m.ID = fmt.Sprint("motion-", i)
		if _, created, err := claim(ctx, s, m); err != nil || !created {
			b.Fatal(created, err)
		}
	}
}

func BenchmarkClaimRetry(b *testing.B) {
	s := openStore(b, testPath(b), Options{})
	ctx := context.Background()
	if _, _, err := claim(ctx, s, testMotion("m")); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, created, err := claim(ctx, s, testMotion("m")); err != nil || created {
			b.Fatal(created, err)
		}
	}
}

const crashConfirmEnv = "INFLIGHT_TEST_CRASH_AFTER_CONFIRM"

// TestAConfirmAndAFinalStateSurviveAKill runs this test binary as a bridge
// SIGKILLed the instant ConfirmPreview (then a final Transition) returns:
// no Close; what was committed must be there on reopening.
func TestAConfirmAndAFinalStateSurviveAKill(t *testing.T) {
	if env := os.Getenv(crashConfirmEnv); env != "" {
		stage, path, _ := strings.Cut(env, ":")
		s, err := Open(path, Options{})
		if err != nil {
			os.Exit(3)
		}
		ctx := context.Background()
		pv := testPreview("p1", time.Now().Add(time.Hour))
		m := testMotion("m1")
		m.Tool, m.ArgsDigest = pv.Tool, pv.ArgsDigest
		if s.PutPreview(ctx, pv) != nil {
			os.Exit(4)
		}
		if _, created, err := confirmID(ctx, s, "p1", m); err != nil || !created {
			os.Exit(5)
		}
		if stage == "final" {
			if _, err := s.Transition(ctx, "m1", StateSent, nil); err != nil {
				os.Exit(6)
			}
			if _, err := s.Transition(ctx, "m1", StateSucceeded, nil); err != nil {
				os.Exit(7)
			}
		}
		_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {}
	}
	for _, tc := range []struct {
		stage string
		want  State
		steps int
	}{
		{"confirm", StateDispatching, 2},
		{"final", StateSucceeded, 4},
	} {
		t.Run(tc.stage, func(t *testing.T) {
			path := testPath(t)
			cmd := exec.Command(os.Args[0], "-test.run=^TestAConfirmAndAFinalStateSurviveAKill$")
			cmd.Env = append(os.Environ(), crashConfirmEnv+"="+tc.stage+":"+path)
			out, err := cmd.CombinedOutput()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
				t.Fatalf("child did not die by SIGKILL: %v\n%s", err, out)
			}
			// Read-only first: inspection sees what was committed.
			ro := openStore(t, path, Options{ReadOnly: true})
			if m, err := ro.Get("m1"); err != nil || m.State != tc.want {
				t.Fatalf("read-only after the kill: %s %v; want %s", m.State, err, tc.want)
			}
			if err := ro.Close(); err != nil {
				t.Fatal(err)
			}
			s := openStore(t, path, Options{})
			m, err := s.Get("m1")
			if err != nil || m.State != tc.want || len(m.History) != tc.steps {
				t.Fatalf("after the kill: %s with %d steps, %v; want %s with %d", m.State, len(m.History), err, tc.want, tc.steps)
			}
			if p, err := s.GetPreview("p1"); err != nil || p.UsedBy != "m1" {
				t.Fatalf("preview after the kill: used_by=%q %v", p.UsedBy, err)
			}
			if _, created, err := confirmID(context.Background(), s, "p1", Motion{ID: "m1", Tool: m.Tool, ArgsDigest: m.ArgsDigest}); err != nil || created {
				t.Fatalf("a retried confirm after the restart: created=%v %v", created, err)
			}
		})
	}
}
