package param

import (
	"context"
	"errors"
	"fmt"

	"github.com/actbridge/actbridge/cdr"
	"github.com/actbridge/actbridge/msgs/ros2"
	"github.com/actbridge/actbridge/ros2/names"
	"github.com/actbridge/actbridge/ros2/service"
	"github.com/actbridge/actbridge/rtps"
)

// Client reaches the parameter services of one remote node. Each call
// is one service call, sent once (ros2/service). Close it to withdraw
// its endpoints.
type Client struct {
	list, get, set, describe *service.Client
	types                    map[string]service.Types
}

// The parameter services a node offers, under its name (rclcpp
// parameter_service_names.hpp).
const (
	listService     = "list_parameters"
	getService      = "get_parameters"
	setService      = "set_parameters"
	describeService = "describe_parameters"
)

// NewClient makes a client of node's parameters; node is the node's
// fully qualified name ("/arm/controller_manager").
func NewClient(p *rtps.Participant, set *msgs.Set, node string, o service.Options) (*Client, error) {
	if err := names.ValidateFullName(node); err != nil {
		return nil, err
	}
	c := &Client{types: map[string]service.Types{}}
	ok := false
	defer func() {
		if !ok {
			c.Close()
		}
	}()
	for _, s := range []struct {
		dst  **service.Client
		name string
		typ  string
	}{
		{&c.list, listService, "rcl_interfaces/srv/ListParameters"},
		{&c.get, getService, "rcl_interfaces/srv/GetParameters"},
		{&c.set, setService, "rcl_interfaces/srv/SetParameters"},
		{&c.describe, describeService, "rcl_interfaces/srv/DescribeParameters"},
	} {
		ty, err := service.ResolveTypes(set, s.typ)
		if err != nil {
			return nil, err
		}
		c.types[s.name] = ty
		if *s.dst, err = service.NewClient(p, ty, node+"/"+s.name, o); err != nil {
			return nil, err
		}
	}
	ok = true
	return c, nil
}

// Close withdraws the client.
func (c *Client) Close() error {
	var errs []error
	for _, s := range []*service.Client{c.list, c.get, c.set, c.describe} {
		if s != nil {
			errs = append(errs, s.Close())
		}
	}
	return errors.Join(errs...)
}

// List returns the names of the node's parameters under prefixes (all
// when none), to depth levels of "." (0: all).
func (c *Client) List(ctx context.Context, prefixes []string, depth uint64) ([]string, error) {
	req := cdr.Zero(c.types[listService].Request)
	req.Set("prefixes", append([]string{}, prefixes...))
	req.Set("depth", depth)
	rep, err := c.list.Call(ctx, req)
	if err != nil {
		return nil, err
	}
	return listReply(rep)
}

// listReply reads a list_parameters reply.
func listReply(rep *cdr.Message) ([]string, error) {
	res, _ := rep.Get("result").(*cdr.Message)
	if res == nil {
		return nil, fmt.Errorf("%w: no result", ErrReply)
	}
	ns, _ := res.Get("names").([]string)
	return ns, nil
}

// Get returns the values of the named parameters, in order. A node that
// allows undeclared parameters answers one it lacks as not set
// (Value{}); rclcpp by default answers nothing at all, ErrNotDeclared.
func (c *Client) Get(ctx context.Context, names ...string) ([]Value, error) {
	req := cdr.Zero(c.types[getService].Request)
	req.Set("names", append([]string{}, names...))
	rep, err := c.get.Call(ctx, req)
	if err != nil {
		return nil, err
	}
	return getReply(rep, names)
}

// getReply reads a get_parameters reply to a request for names.
func getReply(rep *cdr.Message, names []string) ([]Value, error) {
	ms, _ := rep.Get("values").([]*cdr.Message)
	if len(ms) == 0 && len(names) > 0 {
		return nil, fmt.Errorf("%w: one of %q", ErrNotDeclared, names)
	}
	if len(ms) != len(names) {
		return nil, fmt.Errorf("%w: %d values for %d names", ErrReply, len(ms), len(names))
	}
	out := make([]Value, len(ms))
	for i, m := range ms {
		var err error
		if out[i], err = valueOf(m); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// SetResult is the node's answer for one parameter set.
type SetResult struct {
	Successful bool
	Reason     string
}

// Set sets parameters one by one (set_parameters, not atomically) and
// returns the node's answer for each, in order.
func (c *Client) Set(ctx context.Context, params ...Parameter) ([]SetResult, error) {
	req := cdr.Zero(c.types[setService].Request)
	pt := req.Type.Field(req.Type.FieldIndex("parameters")).Type
	ms := cdr.MakeSlice(pt, len(params)).([]*cdr.Message)
	for i, p := range params {
		ms[i].Set("name", p.Name)
		vm, err := p.Value.message(ms[i].Get("value").(*cdr.Message).Type)
		if err != nil {
			return nil, fmt.Errorf("parameter %q: %w", p.Name, err)
		}
		ms[i].Set("value", vm)
	}
	req.Set("parameters", ms)
	rep, err := c.set.Call(ctx, req)
	if err != nil {
		return nil, err
	}
	return setReply(rep, len(params))
}

// setReply reads a set_parameters reply to a request for n parameters.
func setReply(rep *cdr.Message, n int) ([]SetResult, error) {
	rs, _ := rep.Get("results").([]*cdr.Message)
	if len(rs) != n {
		return nil, fmt.Errorf("%w: %d results for %d parameters", ErrReply, len(rs), n)
	}
	out := make([]SetResult, len(rs))
	for i, r := range rs {
		out[i].Successful, _ = r.Get("successful").(bool)
		out[i].Reason, _ = r.Get("reason").(string)
	}
	return out, nil
}

// Descriptor is what a node says of one parameter
// (rcl_interfaces/ParameterDescriptor); Message holds it whole, ranges
// included.
type Descriptor struct {
	Name, Description, AdditionalConstraints string
	Type                                     Type
	ReadOnly                                 bool
	Message                                  *cdr.Message
}

// Describe returns the descriptors of the named parameters, in order;
// ErrNotDeclared as for Get.
func (c *Client) Describe(ctx context.Context, names ...string) ([]Descriptor, error) {
	req := cdr.Zero(c.types[describeService].Request)
	req.Set("names", append([]string{}, names...))
	rep, err := c.describe.Call(ctx, req)
	if err != nil {
		return nil, err
	}
	return describeReply(rep, names)
}

// describeReply reads a describe_parameters reply to a request for names.
func describeReply(rep *cdr.Message, names []string) ([]Descriptor, error) {
	ms, _ := rep.Get("descriptors").([]*cdr.Message)
	if len(ms) == 0 && len(names) > 0 {
		return nil, fmt.Errorf("%w: one of %q", ErrNotDeclared, names)
	}
	if len(ms) != len(names) {
		return nil, fmt.Errorf("%w: %d descriptors for %d names", ErrReply, len(ms), len(names))
	}
	out := make([]Descriptor, len(ms))
	for i, m := range ms {
		d := Descriptor{Message: m}
		d.Name, _ = m.Get("name").(string)
		d.Description, _ = m.Get("description").(string)
		d.AdditionalConstraints, _ = m.Get("additional_constraints").(string)
		t, _ := m.Get("type").(uint8)
		d.Type = Type(t)
		d.ReadOnly, _ = m.Get("read_only").(bool)
		out[i] = d
	}
	return out, nil
}
