package inspect

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/actbridge/actbridge/msgs/ros2"
	"github.com/actbridge/actbridge/ros2/graph"
	"github.com/actbridge/actbridge/ros2/names"
	"github.com/actbridge/actbridge/ros2/param"
	"github.com/actbridge/actbridge/ros2/service"
)

// ErrNoParameters means the node is in the graph but serves no parameter
// services (a plain DDS node, or one made without them): it has no
// parameters to list or get.
var ErrNoParameters = errors.New("inspect: the node serves no parameters")

// Params returns the names of the node's parameters, sorted, as ros2
// param list prints them; node is its full name ("/arm/controller"; a
// name without the leading slash is taken from the root, as ros2 param
// does).
func (in *Inspector) Params(ctx context.Context, node string) ([]string, error) {
	c, err := in.paramClient(ctx, node)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	wait, cancel := in.wait(ctx)
	defer cancel()
	list, err := c.List(wait, nil, 0)
	if err != nil {
		return nil, in.paramErr(node, "list_parameters", err)
	}
	slices.Sort(list)
	return list, nil
}

// Param returns the value of one of the node's parameters: Value{} when
// the node allows undeclared parameters and this one is not set,
// param.ErrNotDeclared when the node says it has no such parameter (an
// rclcpp node's usual answer).
func (in *Inspector) Param(ctx context.Context, node, name string) (param.Value, error) {
	if name == "" {
		return param.Value{}, invalid("no parameter name")
	}
	c, err := in.paramClient(ctx, node)
	if err != nil {
		return param.Value{}, err
	}
	defer c.Close()
	wait, cancel := in.wait(ctx)
	defer cancel()
	vs, err := c.Get(wait, name)
	switch {
	case errors.Is(err, param.ErrNotDeclared):
		return param.Value{}, fmt.Errorf("%w: %s has no parameter %s", param.ErrNotDeclared, absNode(node), name)
	case err != nil:
		return param.Value{}, in.paramErr(node, "get_parameters", err)
	}
	return vs[0], nil
}

// absNode is a node name made absolute, as ros2node's
// get_absolute_node_name makes it.
func absNode(node string) string {
	if !strings.HasPrefix(node, "/") {
		return "/" + node
	}
	return node
}

// paramClient waits for the node and its parameter services and returns
// a client of them.
func (in *Inspector) paramClient(ctx context.Context, node string) (*param.Client, error) {
	node = absNode(node)
	if err := names.ValidateFullName(node); err != nil {
		return nil, kindError{ErrInvalid, fmt.Errorf("node %q: %w", node, err)}
	}
	served := func(g graph.Graph) bool {
		s, ok := findService(g, node+"/list_parameters")
		return ok && len(s.Servers) > 0
	}
	// A node already seen with its parameter services needs no settling
	// (params list of every node asks each in turn).
	g := in.c.Graph()
	if _, ok := g.Node(node); !ok || !served(g) {
		var err error
		if g, err = in.Graph(ctx, "node "+node, func(g graph.Graph) bool { _, ok := g.Node(node); return ok }); err != nil {
			return nil, err
		}
	}
	if !served(g) {
		return nil, fmt.Errorf("%w: %s has no %s/list_parameters server", ErrNoParameters, node, node)
	}
	n, err := in.node()
	if err != nil {
		return nil, err
	}
	set, err := msgs.Load(in.c.Distro())
	if err != nil {
		return nil, err
	}
	return param.NewClient(in.c.Participant(), set, node, service.Options{Endpoints: n.Announce})
}

func (in *Inspector) paramErr(node, srv string, err error) error {
	if errors.Is(err, service.ErrNoServer) {
		return in.notFound("server of " + absNode(node) + "/" + srv)
	}
	return fmt.Errorf("calling %s/%s: %w", absNode(node), srv, err)
}
