package wire

import (
	"math"
	"time"
)

// Time is an RTPS Time_t: seconds and 2^-32 fractions since the Unix epoch.
type Time struct {
	Seconds  int32
	Fraction uint32
}

// TimeOf converts t to an RTPS time.
func TimeOf(t time.Time) Time {
	ns := t.UnixNano()
	sec := ns / 1e9
	frac := (uint64(ns%1e9) << 32) / 1e9
	return Time{Seconds: int32(sec), Fraction: uint32(frac)}
}

// Time converts to a time.Time.
func (t Time) Time() time.Time {
	ns := (uint64(t.Fraction) * 1e9) >> 32
	return time.Unix(int64(t.Seconds), int64(ns))
}

// Duration is an RTPS Duration_t, laid out as Time.
type Duration Time

// InfiniteDuration returns the spec's DURATION_INFINITE.
func InfiniteDuration() Duration { return Duration{0x7fffffff, 0xffffffff} }

// DurationOf converts d; negative becomes zero and too large infinite.
func DurationOf(d time.Duration) Duration {
	if d <= 0 {
		return Duration{}
	}
	sec := d / time.Second
	if sec >= math.MaxInt32 {
		return InfiniteDuration()
	}
	frac := (uint64(d%time.Second) << 32) / 1e9
	return Duration{Seconds: int32(sec), Fraction: uint32(frac)}
}

// Duration converts to a time.Duration; infinite and anything beyond
// time.Duration's range map to the largest time.Duration, negative to 0.
func (d Duration) Duration() time.Duration {
	if d == InfiniteDuration() || d.Seconds < 0 {
		if d.Seconds < 0 {
			return 0
		}
		return time.Duration(math.MaxInt64)
	}
	return time.Duration(d.Seconds)*time.Second + time.Duration((uint64(d.Fraction)*1e9)>>32)
}

// Marshal appends d (8 octets) in byte order o.
func (d Duration) appendTo(b []byte, o ByteOrder) []byte {
	return o.AppendUint32(o.AppendUint32(b, uint32(d.Seconds)), d.Fraction)
}

// UnmarshalDuration reads a Duration_t in byte order o.
func UnmarshalDuration(b []byte, o ByteOrder) (Duration, error) {
	if len(b) < 8 {
		return Duration{}, ErrShort
	}
	return Duration{Seconds: int32(o.Uint32(b)), Fraction: o.Uint32(b[4:])}, nil
}
