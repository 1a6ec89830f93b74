package inspect

import (
	"context"
	"errors"
	"fmt"
	"os"
	"reflect"
	"time"

	"github.com/actbridge/actbridge/ros2/graph"
	"github.com/actbridge/actbridge/ros2/node"
)

// Errors of this package; compare with errors.Is.
var (
	// ErrNotFound means nothing of what was asked for appeared in time.
	// The error says where discovery looked and, when it can tell, why.
	ErrNotFound = errors.New("inspect: not found")
	// ErrInvalid means the caller's input is wrong: a name, a type, a
	// request, a QoS override. Asking again the same way fails the same.
	ErrInvalid = errors.New("inspect: invalid input")
)

// kindError keeps a message as it is and says which of the package's
// errors it is.
type kindError struct {
	kind error
	err  error
}

func (e kindError) Error() string           { return e.err.Error() }
func (e kindError) Unwrap() []error         { return []error{e.kind, e.err} }
func invalid(format string, a ...any) error { return kindError{ErrInvalid, fmt.Errorf(format, a...)} }

// SettleTime is how long the graph must stay unchanged before a listing
// is taken: participants announce their endpoints one by one.
const SettleTime = 500 * time.Millisecond

// Options say which graph to join and how long to wait.
type Options struct {
	// Node is the Context's options: distro, discovery, remapping.
	Node node.Options
	// Timeout bounds each wait (default 5 s).
	Timeout time.Duration
	// NodeName is the hidden node that resolves relative names and owns
	// the endpoints of Echo, Call and the parameter methods (default
	// _actbridge_inspect_<pid>). It is made on first use only, so a
	// listing adds no node to the graph it lists.
	NodeName string
}

// Inspector is one participant looking at a graph. Close it.
type Inspector struct {
	c        *node.Context
	disc     node.Discovery
	timeout  time.Duration
	nodeName string
	n        *node.Node
}

// Open joins the graph o names.
func Open(ctx context.Context, o Options) (*Inspector, error) {
	if o.Timeout <= 0 {
		o.Timeout = 5 * time.Second
	}
	if o.NodeName == "" {
		o.NodeName = fmt.Sprintf("_actbridge_inspect_%d", os.Getpid())
	}
	c, err := node.NewContext(ctx, o.Node)
	if err != nil {
		return nil, err
	}
	return &Inspector{c: c, disc: o.Node.Discovery, timeout: o.Timeout, nodeName: o.NodeName}, nil
}

// Close leaves the graph.
func (in *Inspector) Close() error { return in.c.Close() }

// Context is the node.Context underneath, for what this package does not
// offer.
func (in *Inspector) Context() *node.Context { return in.c }

// node is the inspector's own node, made on first use.
func (in *Inspector) node() (*node.Node, error) {
	if in.n == nil {
		n, err := in.c.NewNode(in.nodeName, "/")
		if err != nil {
			return nil, err
		}
		in.n = n
	}
	return in.n, nil
}

// resolve expands name (a topic, or a service when service) as the
// inspector's node resolves it, remapping included.
func (in *Inspector) resolve(name string, service bool) (*node.Node, string, error) {
	n, err := in.node()
	if err != nil {
		return nil, "", err
	}
	resolved, err := n.Resolve(name, service)
	if err != nil {
		return nil, "", kindError{ErrInvalid, err}
	}
	return n, resolved, nil
}

// notFound is the one-line reason for an empty answer, with what to set
// when discovery shows why (node.Discovery.Advice).
func (in *Inspector) notFound(what string) error {
	err := fmt.Errorf("no %s found on domain %d within %v (discovery %s; %d other participants seen)",
		what, in.disc.Domain, in.timeout, in.disc.Range, len(in.c.Participant().Participants()))
	if a := in.c.Advice(); a != "" {
		err = fmt.Errorf("%w: %s", err, a)
	}
	return kindError{ErrNotFound, err}
}

// wait bounds ctx by the inspector's timeout.
func (in *Inspector) wait(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, in.timeout)
}

// Graph waits until cond holds, then until the graph stays unchanged for
// SettleTime, and returns it; ErrNotFound (naming what) when cond never
// held within the timeout.
func (in *Inspector) Graph(ctx context.Context, what string, cond func(graph.Graph) bool) (graph.Graph, error) {
	wait, cancel := in.wait(ctx)
	defer cancel()
	g, err := in.c.WaitGraph(wait, cond)
	if err != nil {
		return g, in.notFound(what)
	}
	for {
		quiet, cancel := context.WithTimeout(wait, SettleTime)
		next, err := in.c.WaitGraph(quiet, func(n graph.Graph) bool { return !reflect.DeepEqual(n, g) })
		cancel()
		if err != nil {
			return g, nil
		}
		g = next
	}
}
