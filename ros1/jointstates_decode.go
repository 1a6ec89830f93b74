package ros1

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/bluenviron/goroslib/v2/pkg/msgs/sensor_msgs"
)

// errBadJointState means a joint_states message did not decode.
var errBadJointState = errors.New("bad sensor_msgs/JointState")

// decodeJointState decodes a serialized sensor_msgs/JointState (without
// its length prefix) into a fresh value, exactly as goroslib would: empty
// arrays are nil, a zero stamp is the zero time, trailing bytes are an error.
func decodeJointState(b []byte) (*sensor_msgs.JointState, error) {
	w := wire{b: b, bad: errBadJointState}
	m := &sensor_msgs.JointState{}
	m.Header.Seq = w.u32()
	secs, nsecs := int32(w.u32()), int32(w.u32())
	m.Header.FrameId = w.str()
	m.Name = w.strs()
	m.Position = w.float64s()
	m.Velocity = w.float64s()
	m.Effort = w.float64s()
	if w.err == nil && len(w.b) > 0 {
		w.err = fmt.Errorf("%w: %d bytes after the message", errBadJointState, len(w.b))
	}
	if w.err != nil {
		return nil, w.err
	}
	if secs != 0 || nsecs != 0 {
		m.Header.Stamp = time.Unix(int64(secs), int64(nsecs)).UTC()
	}
	return m, nil
}

// wire reads little-endian ROS fields off a message; the first shortfall
// sticks in err, and every later read returns a zero value.
type wire struct {
	b   []byte
	bad error // what a shortfall wraps: the message type that failed
	err error
}

func (w *wire) take(n uint64) []byte {
	if w.err != nil {
		return nil
	}
	if n > uint64(len(w.b)) {
		w.err = fmt.Errorf("%w: %d bytes wanted, %d left", w.bad, n, len(w.b))
		return nil
	}
	out := w.b[:n]
	w.b = w.b[n:]
	return out
}

func (w *wire) u32() uint32 {
	if b := w.take(4); b != nil {
		return binary.LittleEndian.Uint32(b)
	}
	return 0
}

func (w *wire) f64() float64 {
	if b := w.take(8); b != nil {
		return math.Float64frombits(binary.LittleEndian.Uint64(b))
	}
	return 0
}

func (w *wire) str() string { return string(w.take(uint64(w.u32()))) }

// count reads an array length, refusing one the rest cannot hold at size
// bytes per element (so a bad length never allocates).
func (w *wire) count(size uint64) int {
	n := uint64(w.u32())
	if w.err == nil && n*size > uint64(len(w.b)) {
		w.err = fmt.Errorf("%w: %d elements in %d bytes", w.bad, n, len(w.b))
	}
	if w.err != nil {
		return 0
	}
	return int(n)
}

func (w *wire) strs() []string {
	n := w.count(4)
	if n == 0 {
		return nil
	}
	out := make([]string, n)
	for i := range out {
		out[i] = w.str()
	}
	return out
}

func (w *wire) float64s() []float64 {
	n := w.count(8)
	if n == 0 {
		return nil
	}
	out := make([]float64, n)
	for i := range out {
		out[i] = math.Float64frombits(binary.LittleEndian.Uint64(w.take(8)))
	}
	return out
}
