package main

import (
	"context"
	"io"
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
	in, err := f.open(ctx, "call")
	if err != nil {
		return err
	}
	defer in.Close()
	rep, err := in.Call(ctx, pos[0], *typ, []byte(body))
	if err != nil {
		return cliErr(err)
	}
	_, err = stdout.Write(append(rep.AppendJSON(nil), '\n'))
	return err
}
