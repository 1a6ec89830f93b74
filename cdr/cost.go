package cdr

import "math"

// What decoding allocates, in octets, as Decode counts it against its
// budget (a Go value's memory, rounded the way the runtime boxes it).
const (
	boxCost   = 8  // a number of more than one octet in an interface
	sliceCost = 24 // a slice header in an interface
	stringHdr = 16 // a string header (in an interface or a []string)
	pointer   = 8  // an element of a []*Message
)

// messageCost is a Message of n fields, its Fields slice included.
func messageCost(n int) int { return 32 + 16*n }

// minCost is the fewest octets a decoded value of t takes: a struct's
// own and its fixed parts, a sequence's header, never its elements.
func (t Type) minCost() int {
	elem := t.Kind.size()
	switch t.Kind {
	case String, WString:
		elem = stringHdr
	case StructKind:
		elem = pointer + t.Struct.minCost
	}
	switch t.Collection {
	case Array:
		return int(min(int64(sliceCost)+int64(t.Len)*int64(elem), math.MaxInt32))
	case Sequence:
		return sliceCost
	}
	switch {
	case t.Kind == StructKind:
		return t.Struct.minCost
	case t.Kind.size() > 1:
		return boxCost
	}
	return 0
}
