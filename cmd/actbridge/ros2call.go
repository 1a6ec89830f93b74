package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/actbridge/actbridge/cdr"
	"github.com/actbridge/actbridge/msgs/ros2"
	"github.com/actbridge/actbridge/ros2/graph"
	"github.com/actbridge/actbridge/ros2/service"
)

// ros2Call runs "actbridge ros2 call SERVICE [JSON]": it waits for the
// service's server, sends the request once and prints the reply as one
// JSON line. A request is never sent twice: a timeout after sending says
// whether the server acknowledged it.
func ros2Call(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f := newROS2Flags("call", stderr)
	typ := f.fs.String("type", "", "service type, pkg/srv/Type (default: the type its server announces)")
	pos, err := f.parseArgs(args)
	if err != nil {
		return helpOK(err)
	}
	if len(pos) < 1 || len(pos) > 2 {
		return usageError{"usage: actbridge ros2 call SERVICE [JSON] [--type pkg/srv/Type] [flags]"}
	}
	body := "{}"
	if len(pos) == 2 {
		body = pos[1]
	}
	c, d, n, name, err := f.openNode(ctx, "call", pos[0], true)
	if err != nil {
		return err
	}
	defer c.Close()
	wait, cancel := context.WithTimeout(ctx, *f.timeout)
	defer cancel()
	if *typ == "" {
		g, err := c.WaitGraph(wait, func(g graph.Graph) bool {
			for _, s := range g.Services {
				if s.Name == name && len(s.Servers) > 0 {
					return true
				}
			}
			return false
		})
		if err != nil {
			return notFound("server of "+name, d, *f.timeout, c)
		}
		for _, s := range g.Services {
			if s.Name == name {
				if len(s.Types) != 1 {
					return fmt.Errorf("%s has servers of several types %v: choose one with --type", name, s.Types)
				}
				*typ = s.Types[0]
			}
		}
	}
	set, err := msgs.Load(c.Distro())
	if err != nil {
		return err
	}
	types, err := service.ResolveTypes(set, *typ)
	if err != nil {
		return usageError{fmt.Sprintf("--type %s: %v", *typ, err)}
	}
	req, err := cdr.FromJSON(types.Request, []byte(body))
	if err != nil {
		return usageError{fmt.Sprintf("request is not a %s: %v", *typ, err)}
	}
	cl, err := service.NewClient(c.Participant(), types, name, service.Options{Endpoints: n.Announce})
	if err != nil {
		return err
	}
	defer cl.Close()
	rep, err := cl.Call(wait, req)
	switch {
	case errors.Is(err, service.ErrNoServer):
		return notFound("server of "+name, d, *f.timeout, c)
	case err != nil:
		return fmt.Errorf("calling %s: %w", name, err)
	}
	_, err = stdout.Write(append(rep.AppendJSON(nil), '\n'))
	return err
}
