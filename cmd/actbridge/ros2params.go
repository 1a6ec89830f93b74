package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/actbridge/actbridge/ros2/graph"
	"github.com/actbridge/actbridge/ros2/inspect"
	"github.com/actbridge/actbridge/ros2/names"
	"github.com/actbridge/actbridge/ros2/param"
)

// ros2Services runs "actbridge ros2 services": ros2 service list's names,
// with each server and client as topics prints publishers.
func ros2Services(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	hidden, jsonOut := false, false
	return inspectCmd(ctx, "services", args, stderr, func(fs *flag.FlagSet) {
		usage := "also list hidden services (a name part starting with _, such as an action's)"
		fs.BoolVar(&hidden, "include-hidden-services", false, usage)
		fs.BoolVar(&hidden, "include-hidden", false, usage+"; the same as --include-hidden-services")
		fs.BoolVar(&jsonOut, "json", false, "print JSON (with each endpoint's Gid, type hash and QoS) instead of text")
	}, func(in *inspect.Inspector, _ []string) error {
		services, err := in.Services(ctx, inspect.Hidden(hidden))
		if err != nil {
			return err
		}
		if jsonOut {
			out := make([]servedJSON, 0, len(services))
			for _, s := range services {
				out = append(out, servedJSON{s.Name, s.Types, endpointsJSON(s.Servers), endpointsJSON(s.Clients)})
			}
			return writeJSON(stdout, out)
		}
		for _, s := range services {
			printServed(stdout, s.Name, s.Types, s.Servers, s.Clients)
		}
		return nil
	})
}

// ros2Actions runs "actbridge ros2 actions": ros2 action list's names
// (hidden ones too: that tool hides none), with each server and client.
func ros2Actions(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	jsonOut := false
	return inspectCmd(ctx, "actions", args, stderr, func(fs *flag.FlagSet) {
		fs.BoolVar(&jsonOut, "json", false, "print JSON (with each server's and client's Gid, type hash and QoS) instead of text")
	}, func(in *inspect.Inspector, _ []string) error {
		actions, err := in.Actions(ctx)
		if err != nil {
			return err
		}
		if jsonOut {
			out := make([]servedJSON, 0, len(actions))
			for _, a := range actions {
				out = append(out, servedJSON{a.Name, a.Types, endpointsJSON(a.Servers), endpointsJSON(a.Clients)})
			}
			return writeJSON(stdout, out)
		}
		for _, a := range actions {
			printServed(stdout, a.Name, a.Types, a.Servers, a.Clients)
		}
		return nil
	})
}

// servedJSON is the --json form of services and actions.
type servedJSON struct {
	Name    string         `json:"name"`
	Types   []string       `json:"types"`
	Servers []endpointJSON `json:"servers"`
	Clients []endpointJSON `json:"clients"`
}

// printServed prints a service or an action: its name and types, then
// a line for each server and client.
func printServed(w io.Writer, name string, types []string, servers, clients []graph.Endpoint) {
	fmt.Fprintf(w, "%s [%s]\n", name, strings.Join(types, ", "))
	printEndpoints(w, "server", servers)
	printEndpoints(w, "client", clients)
}

const paramsUsage = "usage: actbridge ros2 params list [NODE] [flags] | actbridge ros2 params get NODE NAME [--hide-type] [flags]"

// ros2Params runs "actbridge ros2 params list|get", as ros2 param list
// and get print.
func ros2Params(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return usageError{paramsUsage}
	}
	switch args[0] {
	case "list":
		return ros2ParamsList(ctx, args[1:], stdout, stderr)
	case "get":
		return ros2ParamGet(ctx, args[1:], stdout, stderr)
	case "-h", "--help", "help":
		fmt.Fprintln(stdout, paramsUsage)
		return nil
	}
	return usageError{fmt.Sprintf("unknown params command %q\n%s", args[0], paramsUsage)}
}

// ros2ParamsList prints a node's parameter names, indented; with no node,
// each node that serves parameters (hidden nodes only with
// --include-hidden-nodes) under its name. A node without parameter
// services lists nothing, as ros2 param list does, and says so on stderr.
func ros2ParamsList(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f := newROS2Flags("params list", stderr)
	hidden := f.fs.Bool("include-hidden-nodes", false, "with no NODE, also list hidden nodes' parameters (a name starting with _)")
	pos, err := f.parseArgs(args)
	if err != nil {
		return helpOK(err)
	}
	if len(pos) > 1 {
		return usageError{paramsUsage}
	}
	in, err := f.open(ctx, "params")
	if err != nil {
		return err
	}
	defer in.Close()
	if len(pos) == 1 {
		list, err := in.Params(ctx, pos[0])
		if errors.Is(err, inspect.ErrNoParameters) {
			fmt.Fprintf(stderr, "actbridge: %v\n", err)
			return nil
		}
		if err != nil {
			return cliErr(err)
		}
		for _, n := range list {
			fmt.Fprintf(stdout, "  %s\n", n)
		}
		return nil
	}
	nodes, err := in.Nodes(ctx)
	if err != nil {
		return err
	}
	for _, n := range nodes {
		full := n.FullName()
		if !*hidden && names.IsHidden(full) || !servesParams(in, full) {
			continue
		}
		list, err := in.Params(ctx, full)
		if err != nil {
			// One node that does not answer does not hide the others' (ros2 param list says so on stderr too).
			fmt.Fprintf(stderr, "actbridge: %s: %v\n", full, err)
			continue
		}
		fmt.Fprintf(stdout, "%s:\n", full)
		for _, p := range list {
			fmt.Fprintf(stdout, "  %s\n", p)
		}
	}
	return nil
}

// servesParams says whether the graph the inspector saw last lists a
// server of node's list_parameters.
func servesParams(in *inspect.Inspector, node string) bool {
	for _, s := range in.Context().Graph().Services {
		if s.Name == node+"/list_parameters" {
			return len(s.Servers) > 0
		}
	}
	return false
}

// ros2ParamGet prints one parameter as ros2 param get does: "Double value
// is: 0.5", or the value alone with --hide-type.
func ros2ParamGet(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f := newROS2Flags("params get", stderr)
	hideType := f.fs.Bool("hide-type", false, "print the value alone, without its type")
	pos, err := f.parseArgs(args)
	if err != nil {
		return helpOK(err)
	}
	if len(pos) != 2 {
		return usageError{paramsUsage}
	}
	in, err := f.open(ctx, "params")
	if err != nil {
		return err
	}
	defer in.Close()
	v, err := in.Param(ctx, pos[0], pos[1])
	if err != nil {
		return cliErr(err)
	}
	label, value, err := paramText(v)
	if err != nil {
		return err
	}
	switch {
	case *hideType:
		fmt.Fprintln(stdout, value)
	case value == "":
		fmt.Fprintln(stdout, label)
	default:
		fmt.Fprintln(stdout, label, value)
	}
	return nil
}

// paramText is ros2 param get's label and Python's print form of a value
// (True, 1.0, array('d', [0.5]), ['a', 'b']); a value not set is the
// label "Parameter not set." alone.
func paramText(v param.Value) (label, value string, err error) {
	list := func(n int, each func(i int) string) string {
		parts := make([]string, n)
		for i := range parts {
			parts[i] = each(i)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	switch x := v.V.(type) {
	case nil:
		return "Parameter not set.", "", nil
	case bool:
		return "Boolean value is:", pyBool(x), nil
	case int64:
		return "Integer value is:", strconv.FormatInt(x, 10), nil
	case float64:
		return "Double value is:", pyFloat(x), nil
	case string:
		return "String value is:", x, nil
	case []byte:
		return "Byte values are:", list(len(x), func(i int) string { return fmt.Sprintf(`b'\x%02x'`, x[i]) }), nil
	case []bool:
		return "Boolean values are:", list(len(x), func(i int) string { return pyBool(x[i]) }), nil
	case []int64:
		return "Integer values are:", "array('q', " + list(len(x), func(i int) string { return strconv.FormatInt(x[i], 10) }) + ")", nil
	case []float64:
		return "Double values are:", "array('d', " + list(len(x), func(i int) string { return pyFloat(x[i]) }) + ")", nil
	case []string:
		return "String values are:", list(len(x), func(i int) string { return "'" + x[i] + "'" }), nil
	}
	return "", "", fmt.Errorf("%w: %T", param.ErrValueType, v.V)
}

func pyBool(b bool) string {
	if b {
		return "True"
	}
	return "False"
}

// pyFloat is Python's repr of a float: fixed notation with at least one
// decimal between 1e-4 and 1e16, exponent notation beyond.
func pyFloat(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case math.IsNaN(f):
		return "nan"
	}
	if a := math.Abs(f); a != 0 && (a < 1e-4 || a >= 1e16) {
		return strconv.FormatFloat(f, 'e', -1, 64) // 1e-05, 1e+16, as Python
	}
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.ContainsAny(s, ".") {
		s += ".0"
	}
	return s
}
