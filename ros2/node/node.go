package node

import (
	"errors"
	"fmt"
	"slices"

	"github.com/actbridge/actbridge/ros2/names"
	"github.com/actbridge/actbridge/rtps"
	"github.com/actbridge/actbridge/rtps/wire"
)

// Node is a named ROS 2 node of a Context: the owner of publishers,
// subscriptions and (through Register) any other endpoint, as the graph
// shows them. Close it to withdraw it and its endpoints.
type Node struct {
	c        *Context
	name, ns string
	// readers, writers and closers are guarded by c.mu.
	readers, writers []wire.GUID
	closers          map[wire.GUID]func() error
	closed           bool
}

// NewNode adds a node named name in namespace ns ("" is "/") after the
// Context's remapping rules (__node, __ns), and announces it.
func (c *Context) NewNode(name, ns string) (*Node, error) {
	if ns == "" {
		ns = "/"
	}
	name, ns = c.remap.Node(name, ns)
	if err := names.ValidateNodeName(name); err != nil {
		return nil, err
	}
	if err := names.ValidateNamespace(ns); err != nil {
		return nil, err
	}
	n := &Node{c: c, name: name, ns: ns, closers: map[wire.GUID]func() error{}}
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil, ErrClosed
	}
	c.nodes = append(c.nodes, n)
	c.stale()
	c.mu.Unlock()
	if err := c.publishInfo(); err != nil {
		n.Close()
		return nil, err
	}
	return n, nil
}

// Name is the node's name after remapping.
func (n *Node) Name() string { return n.name }

// Namespace is the node's namespace after remapping.
func (n *Node) Namespace() string { return n.ns }

// FullName is "/ns/name", as `ros2 node list` prints it.
func (n *Node) FullName() string {
	full, _ := names.NodeFullName(n.name, n.ns)
	return full
}

// Resolve expands a topic (service false) or service name given to the
// node and applies the remapping rules, as rcl_node_resolve_name does.
func (n *Node) Resolve(name string, service bool) (string, error) {
	return n.c.remap.Resolve(name, n.name, n.ns, service)
}

// Register announces an endpoint the node owns in ros_discovery_info and
// the graph: e is as given to the participant, with the GUID it returned
// (e.Writer tells a writer from a reader). Service and action layers use
// it for the endpoints they make on Context.Participant; Unregister before
// withdrawing the endpoint.
func (n *Node) Register(e rtps.EndpointData) error {
	if e.GUID == (wire.GUID{}) {
		return fmt.Errorf("%w: Register needs the endpoint's GUID", rtps.ErrConfig)
	}
	if err := n.add(e, nil); err != nil {
		return err
	}
	return n.c.publishInfo()
}

// add records e (and how to close it) under c.mu.
func (n *Node) add(e rtps.EndpointData, closer func() error) error {
	c := n.c
	c.mu.Lock()
	defer c.mu.Unlock()
	if n.closed || c.closed {
		return ErrClosed
	}
	e.Vendor = rtps.VendorID
	c.local[e.GUID] = e
	if e.Writer {
		n.writers = append(n.writers, e.GUID)
	} else {
		n.readers = append(n.readers, e.GUID)
	}
	if closer != nil {
		n.closers[e.GUID] = closer
	}
	c.stale()
	return nil
}

// Announce is Register (added) or Unregister (not added) in the form of
// an endpoint hook, func(rtps.EndpointData, bool) error: pass n.Announce
// where a layer that makes its own endpoints (ros2/service's
// EndpointHook) asks whom to tell.
func (n *Node) Announce(e rtps.EndpointData, added bool) error {
	if added {
		return n.Register(e)
	}
	return n.Unregister(e.GUID)
}

// Unregister removes an endpoint Register announced.
func (n *Node) Unregister(g wire.GUID) error {
	n.remove(g)
	return n.c.publishInfo()
}

func (n *Node) remove(g wire.GUID) {
	c := n.c
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.local, g)
	delete(n.closers, g)
	n.readers = slices.DeleteFunc(n.readers, func(x wire.GUID) bool { return x == g })
	n.writers = slices.DeleteFunc(n.writers, func(x wire.GUID) bool { return x == g })
	c.stale()
}

// Close withdraws the node's publishers and subscriptions and the node.
// Endpoints added with Register are their owner's to close.
func (n *Node) Close() error {
	c := n.c
	c.mu.Lock()
	if n.closed {
		c.mu.Unlock()
		return nil
	}
	n.closed = true
	var closers []func() error
	for _, f := range n.closers {
		closers = append(closers, f)
	}
	for _, g := range slices.Concat(n.readers, n.writers) {
		delete(c.local, g)
	}
	n.readers, n.writers = nil, nil
	c.nodes = slices.DeleteFunc(c.nodes, func(x *Node) bool { return x == n })
	c.stale()
	c.mu.Unlock()
	var errs []error
	for _, f := range closers {
		errs = append(errs, f())
	}
	if !c.isClosed() {
		errs = append(errs, c.publishInfo())
	}
	return errors.Join(errs...)
}

func (c *Context) isClosed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closed
}
