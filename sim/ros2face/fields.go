package ros2face

import (
	"fmt"
	"strings"
	"time"

	"github.com/actbridge/actbridge/cdr"
	"github.com/actbridge/actbridge/sim"
)

// fields fills a message by dotted paths ("header.stamp.sec") and keeps
// the first error, so a converter reads as a list of assignments.
type fields struct {
	m   *cdr.Message
	err error
}

func (f *fields) set(path string, v any) {
	if f.err != nil {
		return
	}
	m, name := f.m, path
	for {
		head, rest, ok := strings.Cut(name, ".")
		if !ok {
			break
		}
		sub, isMsg := m.Get(head).(*cdr.Message)
		if !isMsg {
			f.err = fmt.Errorf("%w: %s has no struct %q", ErrMessage, m.Type.Name(), head)
			return
		}
		m, name = sub, rest
	}
	if err := m.Set(name, v); err != nil {
		f.err = fmt.Errorf("%w: %v", ErrMessage, err)
	}
}

// point sets a Point or Vector3 at path.
func (f *fields) point(path string, p sim.Point3) {
	f.set(path+".x", p.X)
	f.set(path+".y", p.Y)
	f.set(path+".z", p.Z)
}

// quaternion sets a Quaternion at path.
func (f *fields) quaternion(path string, q sim.Quaternion) {
	f.set(path+".x", q.X)
	f.set(path+".y", q.Y)
	f.set(path+".z", q.Z)
	f.set(path+".w", q.W)
}

// stamp sets a builtin_interfaces/Time at path.
func (f *fields) stamp(path string, t time.Time) {
	sec, nsec := rosTime(t)
	f.set(path+".sec", sec)
	f.set(path+".nanosec", nsec)
}

// rosTime splits t into builtin_interfaces/Time's fields; the zero time is 0.
func rosTime(t time.Time) (int32, uint32) {
	if t.IsZero() {
		return 0, 0
	}
	n := t.UnixNano()
	return int32(n / 1e9), uint32(n % 1e9)
}

// timeOf reads a builtin_interfaces/Time; 0 is the zero time.
func timeOf(m *cdr.Message) time.Time {
	sec, _ := m.Get("sec").(int32)
	nsec, _ := m.Get("nanosec").(uint32)
	if sec == 0 && nsec == 0 {
		return time.Time{}
	}
	return time.Unix(int64(sec), int64(nsec))
}

// get reads a dotted path; nil when any step is missing.
func get(m *cdr.Message, path string) any {
	for {
		head, rest, ok := strings.Cut(path, ".")
		if !ok {
			return m.Get(path)
		}
		sub, isMsg := m.Get(head).(*cdr.Message)
		if !isMsg {
			return nil
		}
		m, path = sub, rest
	}
}

// durationOf reads a builtin_interfaces/Duration.
func durationOf(m *cdr.Message) time.Duration {
	sec, _ := m.Get("sec").(int32)
	nsec, _ := m.Get("nanosec").(uint32)
	return time.Duration(sec)*time.Second + time.Duration(nsec)
}

// durationFields splits d into builtin_interfaces/Duration's fields
// (nanosec always in [0, 1e9), as rclcpp normalises it).
func durationFields(d time.Duration) (int32, uint32) {
	sec := d / time.Second
	nsec := d % time.Second
	if nsec < 0 {
		sec--
		nsec += time.Second
	}
	return int32(sec), uint32(nsec)
}
