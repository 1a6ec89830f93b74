package inspect

import (
	"context"
	"errors"
	"fmt"

	"github.com/actbridge/actbridge/cdr"
	"github.com/actbridge/actbridge/msgs/ros2"
	"github.com/actbridge/actbridge/ros2/graph"
	"github.com/actbridge/actbridge/ros2/service"
)

// Call sends request (JSON; fields left out are zero) to service once a
// server is there and returns the reply. typ ("pkg/srv/Type") may be ""
// to take the type the server announces. A request is never sent twice:
// an error after sending says whether the server acknowledged it
// (service.ErrUndelivered, service.ErrNoReply).
func (in *Inspector) Call(ctx context.Context, name, typ string, request []byte) (*cdr.Message, error) {
	n, name, err := in.resolve(name, true)
	if err != nil {
		return nil, err
	}
	wait, cancel := in.wait(ctx)
	defer cancel()
	if typ == "" {
		g, err := in.c.WaitGraph(wait, func(g graph.Graph) bool {
			s, ok := findService(g, name)
			return ok && len(s.Servers) > 0
		})
		if err != nil {
			return nil, in.notFound("server of " + name)
		}
		s, _ := findService(g, name)
		if len(s.Types) != 1 {
			return nil, fmt.Errorf("%s has servers of several types %v: choose one with --type", name, s.Types)
		}
		typ = s.Types[0]
	}
	set, err := msgs.Load(in.c.Distro())
	if err != nil {
		return nil, err
	}
	types, err := service.ResolveTypes(set, typ)
	if err != nil {
		return nil, invalid("--type %s: %v", typ, err)
	}
	req, err := cdr.FromJSON(types.Request, request)
	if err != nil {
		return nil, invalid("request is not a %s: %v", typ, err)
	}
	cl, err := service.NewClient(in.c.Participant(), types, name, service.Options{Endpoints: n.Announce})
	if err != nil {
		return nil, err
	}
	defer cl.Close()
	rep, err := cl.Call(wait, req)
	switch {
	case errors.Is(err, service.ErrNoServer):
		return nil, in.notFound("server of " + name)
	case err != nil:
		return nil, fmt.Errorf("calling %s: %w", name, err)
	}
	return rep, nil
}

// findService returns the service of that name.
func findService(g graph.Graph, name string) (graph.Service, bool) {
	for _, s := range g.Services {
		if s.Name == name {
			return s, true
		}
	}
	return graph.Service{}, false
}
