package action

import (
	"encoding/binary"
	"errors"
	"maps"
	"runtime"
	"testing"

	"github.com/actbridge/actbridge/cdr"
	"github.com/actbridge/actbridge/msgs/ros2"
)

// statusType is a distro's GoalStatusArray.
func statusType(t testing.TB, d msgs.Distro) *cdr.Struct {
	set, err := msgs.Load(d)
	if err != nil {
		t.Fatal(err)
	}
	status, err := set.Struct("action_msgs/msg/GoalStatusArray")
	if err != nil {
		t.Fatal(err)
	}
	return status
}

// statusArray encodes n statuses of distinct goals, each EXECUTING, in
// about 28n octets.
func statusArray(t testing.TB, status *cdr.Struct, n int) []byte {
	encode := func(k int) []byte {
		m := cdr.Zero(status)
		m.Set("status_list", cdr.MakeSlice(status.Field(0).Type, k))
		b, err := cdr.Encode(m, cdr.LittleEndian)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	one, two := encode(1), encode(2)
	entry := two[len(one):] // every status after the first is laid out alike
	b := append(make([]byte, 0, len(one)+(n-1)*len(entry)), one...)
	for range n - 1 {
		b = append(b, entry...)
	}
	binary.LittleEndian.PutUint32(b[4:], uint32(n))
	// Goal i's uuid starts with i; its code follows its stamp.
	binary.LittleEndian.PutUint32(b[8:], 0)
	b[8+24] = 2
	for i := 1; i < n; i++ {
		at := len(one) + (i-1)*len(entry) // the uuid, then 3 octets of padding, the stamp, the code
		binary.LittleEndian.PutUint32(b[at:], uint32(i))
		b[at+27] = 2
	}
	return b
}

func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestOversizedStatusArrayIsRefusedWithBoundedAllocation: an 8 MiB
// GoalStatusArray (300,000 goals) from a server took 82 MiB to decode;
// now reading it fails with an error, having allocated next to nothing,
// and 60,000 goals are read into little more than their own size.
func TestOversizedStatusArrayIsRefusedWithBoundedAllocation(t *testing.T) {
	status := statusType(t, msgs.Jazzy)
	big := statusArray(t, status, 8<<20/28)
	var got map[GoalID]int8
	var err error
	n := allocated(func() { got, err = parseStatus(status, big) })
	if !errors.Is(err, cdr.ErrBound) || got != nil {
		t.Fatalf("%d octets of statuses: %d read, %v; want cdr.ErrBound", len(big), len(got), err)
	}
	if n > 64<<10 {
		t.Fatalf("refusing %d octets allocated %d", len(big), n)
	}
	many := statusArray(t, status, 60000)
	n = allocated(func() { got, err = parseStatus(status, many) })
	if err != nil || len(got) != 60000 || got[GoalID{0x10, 0x27}] != 2 {
		t.Fatalf("60,000 goals: %d read, %v", len(got), err)
	}
	t.Logf("60,000 goals, %d octets: %d allocated", len(many), n)
	if n > 3*uint64(len(many)) {
		t.Fatalf("reading %d octets of statuses allocated %d", len(many), n)
	}
}

// FuzzStatusArrayAgreesWithTheDecoder: the status reader reads what the
// generic CDR decoder reads from the same octets, in every distro's
// layout: each goal's last code, or an error when the decoder has one
// (short of its memory bound, which the reader does not need).
func FuzzStatusArrayAgreesWithTheDecoder(f *testing.F) {
	var types []*cdr.Struct
	for _, d := range msgs.Distros() {
		types = append(types, statusType(f, d))
	}
	f.Add(statusArray(f, types[0], 3))
	f.Add(statusArray(f, types[0], 3)[:60])
	be := cdr.Zero(types[0])
	be.Set("status_list", cdr.MakeSlice(types[0].Field(0).Type, 2))
	b, _ := cdr.Encode(be, cdr.BigEndian)
	f.Add(b)
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := readStatusArray(b)
		for _, typ := range types {
			m, derr := cdr.Decode(typ, b)
			if errors.Is(derr, cdr.ErrTooLarge) {
				continue // more goals than the generic decoder's memory bound
			}
			if derr != nil {
				if err == nil {
					t.Fatalf("read %v where the decoder fails: %v", got, derr)
				}
				continue
			}
			want := map[GoalID]int8{}
			for _, st := range m.Get("status_list").([]*cdr.Message) {
				code, _ := st.Get("status").(int8)
				want[goalIDOf(st.Get("goal_info").(*cdr.Message))] = code
			}
			if err != nil || !maps.Equal(got, want) {
				t.Fatalf("%s: read %v (%v), the decoder %v", typ.Name(), got, err, want)
			}
		}
	})
}
