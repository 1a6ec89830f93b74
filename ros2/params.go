package ros2

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/msgs/ros2"
	"github.com/actbridge/actbridge/ros2/graph"
	"github.com/actbridge/actbridge/ros2/param"
	"github.com/actbridge/actbridge/ros2/service"
)

// Parameter names. A ROS 2 parameter belongs to a node; the bridge names
// it by the node's full name, a slash, and the parameter's own name, dots
// kept: /joint_trajectory_controller/constraints.goal_time. The node is
// the longest node of the graph whose full name prefixes the name at a
// slash (a parameter name may hold slashes: qos_overrides./tf.publisher.depth);
// with no such node, the name splits at its last slash. Allowlist
// patterns (access.params) use this form.

// Bounds of the parameter calls.
const (
	// paramTimeout bounds one parameter call to one node.
	paramTimeout = 5 * time.Second
	// paramNodeTimeout bounds one node's list in ParamNames: a node that
	// does not answer in time is left out, not waited for.
	paramNodeTimeout = 3 * time.Second
	// maxParamNodes bounds how many nodes ParamNames asks.
	maxParamNodes = 100
	// paramParallel is how many nodes ParamNames asks at once.
	paramParallel = 8
	// maxParamClients bounds the parameter clients kept between calls;
	// past it a client is made for one call and closed.
	maxParamClients = 32
)

// ErrParamRefused: the parameter's node refused the set (a wrong type,
// read-only, undeclared, out of its range); its reason is in the message.
var ErrParamRefused = fmt.Errorf("%w: the node refused the parameter", actuators.ErrRefusedByRobot)

// listParameters is the service whose server says a node serves parameters.
const listParameters = "/list_parameters"

// paramNodes are the nodes of g serving parameters, known by their
// list_parameters servers (discovery lists those before the node
// announcements come), the bridge's own left out, sorted.
func (r *Robot) paramNodes(g graph.Graph) []string {
	var out []string
	for _, s := range g.Services {
		if n, ok := strings.CutSuffix(s.Name, listParameters); ok && len(s.Servers) > 0 && n != "" && n != r.node.FullName() {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// splitParam splits a bridge parameter name into its node and the
// parameter's own name (see Parameter names).
func splitParam(nodes []string, name string) (node, param string, err error) {
	for _, n := range nodes {
		if strings.HasPrefix(name, n+"/") && len(n) > len(node) {
			node = n
		}
	}
	if node == "" {
		i := strings.LastIndexByte(name, '/')
		if i <= 0 {
			return "", "", fmt.Errorf("%w: %q is not /<node>/<parameter>", actuators.ErrInvalidArgument, name)
		}
		node = name[:i]
	}
	if param = name[len(node)+1:]; param == "" {
		return "", "", fmt.Errorf("%w: %q names no parameter", actuators.ErrInvalidArgument, name)
	}
	return node, param, nil
}

// paramTarget resolves name against the graph's parameter nodes; a node
// that serves no parameters is ErrParamNotSet.
func (r *Robot) paramTarget(name string) (string, string, error) {
	nodes := r.paramNodes(r.rctx.Graph())
	n, p, err := splitParam(nodes, name)
	if err != nil {
		return "", "", err
	}
	if !slices.Contains(nodes, n) {
		return "", "", fmt.Errorf("%w: %s: no node %s serving parameters in the graph", actuators.ErrParamNotSet, name, n)
	}
	return n, p, nil
}

// withParams runs f with a parameter client of node: a kept one, a new
// one kept, or past maxParamClients one closed after f.
func (r *Robot) withParams(node string, f func(*param.Client) error) error {
	c, kept, err := r.access.paramClient(r.Distro(), node, func(set *msgs.Set) (*param.Client, error) {
		return param.NewClient(r.rctx.Participant(), set, node, service.Options{Endpoints: r.node.Announce, Logger: r.log})
	})
	if err != nil {
		return err
	}
	if !kept {
		defer c.Close()
	}
	return f(c)
}

// paramClient returns node's kept client, or makes one with newClient
// (on the distro's set, loaded once) and keeps it while fewer than
// maxParamClients are kept.
func (a *access) paramClient(d msgs.Distro, node string, newClient func(*msgs.Set) (*param.Client, error)) (*param.Client, bool, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return nil, false, actuators.ErrClosed
	}
	if c := a.params[node]; c != nil {
		return c, true, nil
	}
	if a.set == nil {
		set, err := msgs.Load(d)
		if err != nil {
			return nil, false, err
		}
		a.set = set
	}
	c, err := newClient(a.set)
	if err != nil {
		return nil, false, err
	}
	if len(a.params) >= maxParamClients {
		return c, false, nil
	}
	if a.params == nil {
		a.params = map[string]*param.Client{}
	}
	a.params[node] = c
	return c, true, nil
}

// paramError maps the client layer's failures: nothing sent is not
// connected; a parameter the node does not declare is not set.
func paramError(name string, err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, service.ErrAmbiguousServer):
		return fmt.Errorf("%w: %s: %w", actuators.ErrAmbiguousServer, name, err)
	case errors.Is(err, service.ErrNoServer), errors.Is(err, service.ErrMixedDialects):
		return fmt.Errorf("%w: %s: %w", actuators.ErrNotConnected, name, err)
	case errors.Is(err, param.ErrNotDeclared):
		return fmt.Errorf("%w: %s", actuators.ErrParamNotSet, name)
	case errors.Is(err, service.ErrClosed):
		return fmt.Errorf("%w: %w", actuators.ErrClosed, err)
	}
	return fmt.Errorf("%s: %w", name, err)
}

// ParamNames lists every parameter of every node of the graph that serves
// parameters (at most maxParamNodes, paramParallel at once, each given
// paramNodeTimeout), in the bridge's name form, sorted. A node that does
// not answer in time is left out; when none answers the call fails.
func (r *Robot) ParamNames(ctx context.Context) ([]string, error) {
	nodes := r.paramNodes(r.rctx.Graph())
	if len(nodes) > maxParamNodes {
		nodes = nodes[:maxParamNodes]
	}
	var (
		mu    sync.Mutex
		out   []string
		fails []error
		wg    sync.WaitGroup
		slots = make(chan struct{}, paramParallel)
	)
	for _, n := range nodes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case slots <- struct{}{}:
				defer func() { <-slots }()
			case <-ctx.Done():
				return
			}
			nctx, cancel := context.WithTimeout(ctx, paramNodeTimeout)
			defer cancel()
			var ps []string
			err := r.withParams(n, func(c *param.Client) (err error) { ps, err = c.List(nctx, nil, 0); return })
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				fails = append(fails, paramError(n, err))
				return
			}
			for _, p := range ps {
				out = append(out, n+"/"+p)
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(nodes) > 0 && len(fails) == len(nodes) {
		return nil, fmt.Errorf("%w: no node answered for its parameters: %w", actuators.ErrNotConnected, fails[0])
	}
	slices.Sort(out)
	return out, nil
}

// GetParam reads one parameter from its node: bool, int64, float64,
// string, []byte, or []any for the other array types. An undeclared or
// unset parameter, or a node not in the graph, is actuators.ErrParamNotSet.
func (r *Robot) GetParam(ctx context.Context, name string) (any, error) {
	n, p, err := r.paramTarget(name)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, paramTimeout)
	defer cancel()
	var vs []param.Value
	err = r.withParams(n, func(c *param.Client) (err error) { vs, err = c.Get(ctx, p); return })
	if err != nil {
		return nil, paramError(name, err)
	}
	if len(vs) != 1 || vs[0].V == nil {
		return nil, fmt.Errorf("%w: %s", actuators.ErrParamNotSet, name)
	}
	return valueJSON(vs[0].V), nil
}

// SetParam sets one parameter on its node (set_parameters): a bool, an
// int (as an integer), a float64 (as a double) or a string. The node
// checks it as rclcpp does; a refusal (another type than declared,
// read-only, undeclared) is ErrParamRefused with the node's reason.
func (r *Robot) SetParam(ctx context.Context, name string, value any) error {
	var v param.Value
	switch x := value.(type) {
	case bool, string:
		v.V = x
	case int:
		v.V = int64(x)
	case int64:
		v.V = x
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("%w: %s: not a finite number", actuators.ErrInvalidArgument, name)
		}
		v.V = x
	default:
		return fmt.Errorf("%w: %s: cannot set a %T", actuators.ErrInvalidArgument, name, value)
	}
	n, p, err := r.paramTarget(name)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, paramTimeout)
	defer cancel()
	var res []param.SetResult
	err = r.withParams(n, func(c *param.Client) (err error) {
		res, err = c.Set(ctx, param.Parameter{Name: p, Value: v})
		return
	})
	if err != nil {
		return paramError(name, err)
	}
	if len(res) != 1 || !res[0].Successful {
		reason := "no reason given"
		if len(res) == 1 && res[0].Reason != "" {
			reason = res[0].Reason
		}
		return fmt.Errorf("%w: %s: %s", ErrParamRefused, name, reason)
	}
	return nil
}
