package action

import (
	"encoding/binary"
	"errors"
	"runtime"
	"testing"

	"github.com/actbridge/actbridge/cdr"
	"github.com/actbridge/actbridge/ros2/msgs"
)

// TestOversizedStatusArrayIsRefusedWithBoundedAllocation: an 8 MiB
// GoalStatusArray (300,000 goals) from a server took 82 MiB to decode;
// now reading it fails with an error, having allocated next to nothing.
func TestOversizedStatusArrayIsRefusedWithBoundedAllocation(t *testing.T) {
	set, err := msgs.Load(msgs.Jazzy)
	if err != nil {
		t.Fatal(err)
	}
	status, err := set.Struct("action_msgs/msg/GoalStatusArray")
	if err != nil {
		t.Fatal(err)
	}
	encode := func(n int) []byte {
		m := cdr.Zero(status)
		m.Set("status_list", cdr.MakeSlice(status.Field(0).Type, n))
		b, err := cdr.Encode(m, cdr.LittleEndian)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	one, two := encode(1), encode(2)
	entry := two[len(one):] // every status after the first is laid out alike
	const goals = 8 << 20 / 28
	b := append(make([]byte, 0, 8<<20+64), one...)
	for range goals - 1 {
		b = append(b, entry...)
	}
	binary.LittleEndian.PutUint32(b[4:], goals)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	got, err := parseStatus(status, b)
	runtime.ReadMemStats(&after)
	if !errors.Is(err, cdr.ErrTooLarge) || got != nil {
		t.Fatalf("%d octets of statuses: %d read, %v; want cdr.ErrTooLarge", len(b), len(got), err)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
		t.Fatalf("refusing %d octets allocated %d", len(b), n)
	}
	if got, err := parseStatus(status, encode(2000)); err != nil || len(got) != 1 {
		t.Fatalf("2000 statuses (of one zero goal id): %d, %v", len(got), err)
	}
}
