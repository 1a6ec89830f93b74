package safety

import (
	"bufio"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"
)

// TestEStopScenarios replays testdata/estop.txt.
func TestEStopScenarios(t *testing.T) {
	sc := bufio.NewScanner(strings.NewReader(string(readTestdata(t, "estop.txt"))))
	e := NewEStop(nil)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case strings.TrimSpace(line) == "":
			e = NewEStop(nil)
			continue
		case strings.HasPrefix(line, "#"):
			continue
		}
		cmd, want, ok := strings.Cut(line, " => ")
		if !ok {
			t.Fatalf("estop.txt:%d: no =>", n)
		}
		verb, arg, _ := strings.Cut(cmd, " ")
		var got string
		switch verb {
		case "latch":
			got = strconv.FormatUint(e.Latch(arg), 10)
		case "reset":
			ev, err := strconv.ParseUint(arg, 10, 64)
			if err != nil {
				t.Fatalf("estop.txt:%d: %v", n, err)
			}
			switch err := e.Reset(ev); {
			case err == nil:
				got = "ok"
			case errors.Is(err, ErrEStopNewerEvent):
				got = "error: newer event"
			case errors.Is(err, ErrEStopUnknownEvent):
				got = "error: unknown event"
			default:
				got = "error: " + err.Error()
			}
		case "state":
			latched, ev, reason, _ := e.State()
			got = fmt.Sprintf("clear %d", ev)
			if latched {
				got = fmt.Sprintf("latched %d %s", ev, reason)
			}
		default:
			t.Fatalf("estop.txt:%d: unknown command %q", n, verb)
		}
		if got != want {
			t.Errorf("estop.txt:%d: %s => %s, want %s", n, cmd, got, want)
		}
	}
}

func TestEStopReasonsAreCleanedAndClipped(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", "unspecified"},
		{" \t\r\n ", "unspecified"},
		{"arm\x00 hit\x1b[31m wall\x7f", "arm hit [31m wall"},
		{"evil\u202egnp.exe", "evil gnp.exe"},
		{"bad \xff utf8", "bad \uFFFD utf8"},
		{"ロボット停止", "ロボット停止"},
	} {
		if got := cleanReason(tc.in); got != tc.want {
			t.Errorf("cleanReason(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	long := cleanReason(strings.Repeat("é", 1000) + "tail")
	if utf8.RuneCountInString(long) != MaxEStopReason || !utf8.ValidString(long) {
		t.Errorf("clipped reason has %d runes", utf8.RuneCountInString(long))
	}
	huge := cleanReason(strings.Repeat("\x00", 10<<20) + "x")
	if huge != "unspecified" {
		t.Errorf("huge control-only reason = %q", huge)
	}
}

func TestEStopSinceIsWhenTheLatchClosed(t *testing.T) {
	now := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	e := NewEStop(func() time.Time { return now })
	e.Latch("a")
	first := now
	now = now.Add(time.Minute)
	e.Latch("b")
	if _, ev, _, since := e.State(); ev != 2 || !since.Equal(first) {
		t.Errorf("event %d since %v, want 2 since %v", ev, since, first)
	}
	if err := e.Reset(2); err != nil {
		t.Fatal(err)
	}
	if _, _, _, since := e.State(); !since.IsZero() {
		t.Errorf("since %v after reset", since)
	}
}

func TestRestoredEStopStaysLatchedAndKeepsCounting(t *testing.T) {
	at := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	e := RestoreEStop(EStopSnapshot{Latched: true, Event: 41, Reason: "before\nrestart", Since: at}, nil)
	if s := e.Snapshot(); s != (EStopSnapshot{Latched: true, Event: 41, Reason: "before restart", Since: at}) {
		t.Errorf("snapshot %+v", s)
	}
	if ev := e.Latch("after restart"); ev != 42 {
		t.Errorf("next event %d", ev)
	}
	if err := e.Reset(41); !errors.Is(err, ErrEStopNewerEvent) {
		t.Errorf("reset 41: %v", err)
	}
}

// LatchAbove always raises a new event above the floor and above every
// event raised so far, latched or not, the same reason included.
func TestLatchAboveRaisesAnEventPastTheFloor(t *testing.T) {
	for _, c := range []struct {
		name  string
		from  EStopSnapshot
		floor uint64
		want  uint64
	}{
		{"open, floor above", EStopSnapshot{Event: 3}, 1027, 1028},
		{"open, floor below", EStopSnapshot{Event: 3}, 1, 4},
		{"latched, same reason", EStopSnapshot{Latched: true, Event: 5, Reason: "crash"}, 0, 6},
		{"latched, floor above", EStopSnapshot{Latched: true, Event: 5, Reason: "stop"}, 9, 10},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := RestoreEStop(c.from, nil)
			if ev := e.LatchAbove(c.floor, "crash"); ev != c.want {
				t.Fatalf("event %d, want %d", ev, c.want)
			}
			if l, ev, r, _ := e.State(); !l || ev != c.want || r != "crash" {
				t.Fatalf("state %v %d %q", l, ev, r)
			}
			if err := e.Reset(c.want - 1); c.want > 1 && !errors.Is(err, ErrEStopNewerEvent) {
				t.Fatalf("an older event reset the new one: %v", err)
			}
		})
	}
}

func TestEStopIsSafeForConcurrentUse(t *testing.T) {
	var e EStop // the zero value works
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			last := uint64(0)
			for i := range 200 {
				ev := e.Latch(fmt.Sprintf("g%d-%d", g, i%3))
				if ev < last {
					t.Errorf("event went back from %d to %d", last, ev)
				}
				last = ev
				_ = e.Reset(ev)
				e.State()
			}
		}()
	}
	wg.Wait()
	latched, ev, _, _ := e.State()
	if ev == 0 || ev > 8*200 {
		t.Errorf("latched %v event %d", latched, ev)
	}
}
