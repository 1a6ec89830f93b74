package rtps

import (
	"fmt"

	"github.com/actbridge/actbridge/rtps/wire"
)

// Reliability kinds as RTPS writes them (PID_RELIABILITY).
const (
	BestEffort Reliability = 1
	Reliable   Reliability = 2
)

// Durability kinds (PID_DURABILITY).
const (
	Volatile       Durability = 0
	TransientLocal Durability = 1
	Transient      Durability = 2
	Persistent     Durability = 3
)

// History kinds (PID_HISTORY).
const (
	KeepLast HistoryKind = 0
	KeepAll  HistoryKind = 1
)

// Reliability says whether lost samples are repaired.
type Reliability uint32

// Durability says whether late joiners get earlier samples.
type Durability uint32

// HistoryKind says whether a history keeps the last Depth samples or all.
type HistoryKind uint32

// QoS is the part of an endpoint's QoS that discovery announces and
// matching checks.
type QoS struct {
	Reliability Reliability
	Durability  Durability
	History     HistoryKind
	Depth       int32
}

// defaultQoS is what the spec says an absent parameter means (table 9.13,
// DDS defaults): writers are reliable, readers best effort; volatile;
// keep-last 1.
func defaultQoS(writer bool) QoS {
	q := QoS{Reliability: BestEffort, Durability: Volatile, History: KeepLast, Depth: 1}
	if writer {
		q.Reliability = Reliable
	}
	return q
}

// withDefaults fills zero fields: the default reliability of the
// endpoint kind, and depth 1 for keep-last.
func (q QoS) withDefaults(writer bool) QoS {
	if q.Reliability == 0 {
		q.Reliability = defaultQoS(writer).Reliability
	}
	if q.History == KeepLast && q.Depth <= 0 {
		q.Depth = 1
	}
	return q
}

// Compatible reports whether a writer offering w can serve a reader
// requesting r (DDS "request/offered"): reliable offers serve best-effort
// requests, and a durability serves any lower one.
func Compatible(w, r QoS) bool {
	return w.Reliability >= r.Reliability && w.Durability >= r.Durability
}

func (q QoS) parameters(o wire.ByteOrder) wire.ParameterList {
	rel := wire.Uint32Value(uint32(q.Reliability), o)
	rel = append(rel, wire.DurationValue(wire.DurationOf(100_000_000), o)...) // max_blocking_time 100 ms, the DDS default
	return wire.ParameterList{
		{ID: wire.PIDReliability, Value: rel},
		{ID: wire.PIDDurability, Value: wire.Uint32Value(uint32(q.Durability), o)},
		{ID: wire.PIDHistory, Value: append(wire.Uint32Value(uint32(q.History), o), wire.Uint32Value(uint32(q.Depth), o)...)},
	}
}

// parseQoS reads the QoS parameters of pl over defaults q.
func parseQoS(q QoS, pl wire.ParameterList, o wire.ByteOrder) (QoS, error) {
	if v, ok := pl.Get(wire.PIDReliability); ok {
		k, err := wire.ParseUint32(v, o)
		if err != nil || k < uint32(BestEffort) || k > uint32(Reliable) {
			return q, fmt.Errorf("%w: reliability % x", ErrEndpointData, v)
		}
		q.Reliability = Reliability(k)
	}
	if v, ok := pl.Get(wire.PIDDurability); ok {
		k, err := wire.ParseUint32(v, o)
		if err != nil || k > uint32(Persistent) {
			return q, fmt.Errorf("%w: durability % x", ErrEndpointData, v)
		}
		q.Durability = Durability(k)
	}
	if v, ok := pl.Get(wire.PIDHistory); ok {
		if len(v) < 8 {
			return q, fmt.Errorf("%w: history % x", ErrEndpointData, v)
		}
		k, _ := wire.ParseUint32(v, o)
		d, _ := wire.ParseUint32(v[4:], o)
		if k > uint32(KeepAll) {
			return q, fmt.Errorf("%w: history kind %d", ErrEndpointData, k)
		}
		q.History, q.Depth = HistoryKind(k), int32(d)
	}
	return q, nil
}
