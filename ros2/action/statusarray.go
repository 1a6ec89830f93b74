package action

import (
	"fmt"

	"github.com/actbridge/actbridge/cdr"
)

// maxStatuses bounds the goals of a GoalStatusArray read: a server keeps
// a goal listed for its result timeout (15 minutes by default), far fewer
// than this; an array of more is refused before anything is allocated.
const maxStatuses = 1 << 16

// statusEntryMin is the fewest octets one GoalStatus takes: a UUID, a
// stamp and a code.
const statusEntryMin = 16 + 8 + 1

// readStatusArray reads an action_msgs/GoalStatusArray sample (CDR, the
// same layout in every distro) as each goal's last status code, straight
// from its octets: the generic decoder made a Message of every entry and
// of each of its parts, about ten times the sample's size (an 8 MiB array
// took 82 MiB); this keeps the map alone.
func readStatusArray(b []byte) (map[GoalID]int8, error) {
	order, d, err := cdr.Body(b)
	if err != nil {
		return nil, err
	}
	pos := 0
	take := func(align, n int) ([]byte, error) {
		p := (pos + align - 1) &^ (align - 1)
		if p > len(d) || n > len(d)-p {
			return nil, fmt.Errorf("%w: status_list: need %d octets at offset %d of %d", cdr.ErrTruncated, n, p, len(d))
		}
		pos = p + n
		return d[p:pos], nil
	}
	c, err := take(4, 4)
	if err != nil {
		return nil, err
	}
	n := uint64(order.Uint32(c))
	switch {
	case n > maxStatuses:
		return nil, fmt.Errorf("%w: status_list of %d goals, bound %d", cdr.ErrBound, n, maxStatuses)
	case n*statusEntryMin > uint64(len(d)-pos):
		return nil, fmt.Errorf("%w: status_list of %d goals in %d octets", cdr.ErrTruncated, n, len(d)-pos)
	}
	out := make(map[GoalID]int8, n)
	for range n {
		u, err := take(1, 16)
		if err != nil {
			return nil, err
		}
		if _, err := take(4, 8); err != nil { // the stamp
			return nil, err
		}
		s, err := take(1, 1)
		if err != nil {
			return nil, err
		}
		out[GoalID(u)] = int8(s[0])
	}
	return out, nil
}
