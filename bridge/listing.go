package bridge

import (
	"errors"
	"sync"
	"sync/atomic"
)

// Shape is what a client lists of a tool beyond its fixed contract: its
// description and the input schema the pipeline checks arguments against.
type Shape struct {
	Description string
	Input       *Schema
}

// A Listing is the shape of a tool that grows after it is declared:
// service_call's request fields, as the transport learns service types.
// The tool declares its Listing once, as it declares its Call; whoever
// learns installs the next shape with Set, and the fronts that list tools
// follow (Registry.Watch: the MCP front lists the tool again, which sends
// notifications/tools/list_changed). The tool value never changes; a call
// reads the shape once (Tool.Shape) and is checked against that.
type Listing struct {
	// mu orders Set from the contract check to the last watcher, so the
	// fronts learn the shapes in the order they were set.
	mu       sync.Mutex
	cur      atomic.Pointer[Shape]
	tool     *Tool // the tool whose listing this is (Registry.Add)
	onChange func()
}

// NewListing returns a listing showing s until the next Set.
func NewListing(s Shape) *Listing {
	l := &Listing{}
	l.cur.Store(&s)
	return l
}

// Shape returns the newest shape.
func (l *Listing) Shape() Shape { return *l.cur.Load() }

// Set installs the next shape once it keeps its tool's contract
// (CheckContract); a shape that breaks it is refused and the listing keeps
// the one it had. The registry's watchers are told before Set returns.
func (l *Listing) Set(s Shape) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.tool != nil {
		if err := checkShape(l.tool, s); err != nil {
			return err
		}
	}
	l.cur.Store(&s)
	if l.onChange != nil {
		l.onChange()
	}
	return nil
}

// bind makes l the listing of t, telling onChange of every later Set.
func (l *Listing) bind(t *Tool, onChange func()) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.tool != nil {
		return errors.New("tool " + t.Name + ": its listing is already " + l.tool.Name + "'s")
	}
	l.tool, l.onChange = t, onChange
	return nil
}

// Shape returns the tool's description and input schema as they are now:
// its Listing's newest when it declares one, else the declared ones.
func (t *Tool) Shape() Shape {
	if t.Listing != nil {
		return t.Listing.Shape()
	}
	return Shape{Description: t.Description, Input: t.Input}
}
