package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/actbridge/actbridge/cdr"
	"github.com/actbridge/actbridge/config"
	"github.com/actbridge/actbridge/msgs/ros2"
	"github.com/actbridge/actbridge/ros2"
	"github.com/actbridge/actbridge/ros2/graph"
	"github.com/actbridge/actbridge/ros2/inspect"
	"github.com/actbridge/actbridge/ros2/names"
	"github.com/actbridge/actbridge/ros2/node"
	"github.com/actbridge/actbridge/rtps"
)

const ros2Usage = `actbridge ros2 — look at a ROS 2 graph without ROS 2 installed

Usage:
  actbridge ros2 topics [flags]              each topic with its type, and the node and DDS vendor
                                             of each publisher and subscriber
  actbridge ros2 nodes [flags]               each node with the DDS vendor of its participant
  actbridge ros2 services [--include-hidden-services] [flags]
                                             each service with its type, servers and clients
                                             (hidden ones, such as an action's, only when asked)
  actbridge ros2 actions [flags]             each action with its type, servers and clients
  actbridge ros2 params list [NODE] [flags]  a node's parameter names; without NODE, every node's
  actbridge ros2 params get NODE NAME [--hide-type] [flags]
                                             one parameter, as ros2 param get prints it
  actbridge ros2 echo TOPIC [--count N] [flags]
                                             print messages as JSON, one object a line
  actbridge ros2 call SERVICE [JSON] [--type pkg/srv/Type] [flags]
                                             call a service once with a request given as JSON
                                             (fields left out are zero) and print the reply

Discovery follows ROS 2's variables: ROS_DOMAIN_ID, ROS_AUTOMATIC_DISCOVERY_RANGE
(LOCALHOST when unset, SUBNET, OFF, SYSTEM_DEFAULT), ROS_LOCALHOST_ONLY (Humble),
ROS_STATIC_PEERS, ROS_DISCOVERY_SERVER (then a super client of those Fast DDS
Discovery Servers); the distro comes from ROS_DISTRO (default jazzy). --config
robot.yaml (transport ros2) sets them as serve does: the config's distro,
domain_id, discovery_range and static_peers, then the variables for what it
leaves unset. Flags override both.

Run "actbridge ros2 <command> -h" for its flags.
`

// ros2Cmd runs "actbridge ros2 …".
func ros2Cmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(stdout, ros2Usage)
		return nil
	}
	switch args[0] {
	case "topics":
		return ros2Topics(ctx, args[1:], stdout, stderr)
	case "nodes":
		return ros2Nodes(ctx, args[1:], stdout, stderr)
	case "echo":
		return ros2Echo(ctx, args[1:], stdout, stderr)
	case "call":
		return ros2Call(ctx, args[1:], stdout, stderr)
	case "services":
		return ros2Services(ctx, args[1:], stdout, stderr)
	case "actions":
		return ros2Actions(ctx, args[1:], stdout, stderr)
	case "params":
		return ros2Params(ctx, args[1:], stdout, stderr)
	}
	return usageError{fmt.Sprintf("unknown ros2 command %q\n%s", args[0], ros2Usage)}
}

// ros2Flags are the flags every ros2 command takes.
type ros2Flags struct {
	fs        *flag.FlagSet
	config    *string
	distro    *string
	domain    *int
	timeout   *time.Duration
	iface     *string
	remapping []string
}

func newROS2Flags(name string, out io.Writer) *ros2Flags {
	fs := newFlags("ros2 "+name, out)
	distro := os.Getenv("ROS_DISTRO")
	if distro == "" {
		distro = string(msgs.Jazzy)
	}
	domain := -1
	f := &ros2Flags{fs: fs, domain: &domain,
		config:  fs.String("config", "", "a robot config of transport ros2: its distro, domain_id, discovery_range and static_peers apply, as serve reads them (flags still win)"),
		distro:  fs.String("distro", distro, "ROS 2 distro of the graph: humble, jazzy, kilted or lyrical ($ROS_DISTRO sets the default)"),
		timeout: fs.Duration("timeout", 5*time.Second, "how long to wait for what is asked for"),
		iface:   fs.String("interface", "", "IPv4 address of the interface SUBNET discovery uses (default: the first multicast one that is up)"),
	}
	fs.Func("domain-id", "DDS domain, 0 to 232 (default $ROS_DOMAIN_ID, else 0)", func(s string) error {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 || n > 232 {
			return fmt.Errorf("%q is not a domain id (0 to 232)", s)
		}
		domain = n
		return nil
	})
	fs.Func("r", "a remapping rule as --ros-args -r takes it (repeatable)", func(s string) error {
		f.remapping = append(f.remapping, s)
		return nil
	})
	return f
}

// parseArgs parses flags and positional arguments in any order.
func (f *ros2Flags) parseArgs(args []string) ([]string, error) {
	var pos []string
	for {
		if err := f.fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, flag.ErrHelp
			}
			return nil, usageError{err.Error()}
		}
		if f.fs.NArg() == 0 {
			return pos, nil
		}
		pos = append(pos, f.fs.Arg(0))
		args = f.fs.Args()[1:]
	}
}

// open joins the graph the environment, the config and the flags name,
// as an inspector whose own node (made on first use) is named after cmd
// and the process.
func (f *ros2Flags) open(ctx context.Context, cmd string) (*inspect.Inspector, error) {
	o, err := f.options()
	if err != nil {
		return nil, err
	}
	in, err := inspect.Open(ctx, inspect.Options{Node: o, Timeout: *f.timeout, NodeName: fmt.Sprintf("_actbridge_%s_%d", cmd, os.Getpid())})
	return in, cliErr(err)
}

// options are the Context's options: discovery from the environment, then
// the config's keys, then the flags.
func (f *ros2Flags) options() (node.Options, error) {
	d, err := node.DiscoveryFromEnv(os.LookupEnv)
	if err != nil {
		return node.Options{}, err
	}
	if *f.config != "" {
		cfg, err := config.Load(*f.config)
		if err != nil {
			return node.Options{}, err
		}
		if cfg.Transport != config.TransportROS2 {
			return node.Options{}, usageError{fmt.Sprintf("--config %s: its transport is %s; the ros2 commands read a config of transport ros2", *f.config, cfg.Transport)}
		}
		if d, err = ros2.Discovery(cfg.ROS2, os.LookupEnv); err != nil {
			return node.Options{}, err
		}
		distroSet := false
		f.fs.Visit(func(fl *flag.Flag) { distroSet = distroSet || fl.Name == "distro" })
		if !distroSet {
			*f.distro = cfg.Distro
		}
	}
	if *f.domain >= 0 {
		d.Domain = *f.domain
	}
	if *f.iface != "" {
		if d.Interface, err = netip.ParseAddr(*f.iface); err != nil {
			return node.Options{}, usageError{fmt.Sprintf("--interface: %v", err)}
		}
	}
	distro, err := msgs.ParseDistro(*f.distro)
	if err != nil {
		return node.Options{}, usageError{err.Error()}
	}
	var remap names.Remap
	for _, s := range f.remapping {
		r, err := names.ParseRule(s)
		if err != nil {
			return node.Options{}, usageError{fmt.Sprintf("-r %s: %v", s, err)}
		}
		remap = append(remap, r)
	}
	// The ros2 commands are super clients of a Discovery Server, as the
	// ros2 tools are with ROS_SUPER_CLIENT: they see the whole graph.
	d = d.ForTools()
	return node.Options{Distro: distro, Discovery: d, Remap: remap}, nil
}

// cliErr makes the inspector's complaints about its input usage errors
// (exit status 2), their message unchanged.
func cliErr(err error) error {
	if errors.Is(err, inspect.ErrInvalid) {
		return usageError{err.Error()}
	}
	return err
}

// inspectCmd parses a command's flags (more adds its own) and runs do
// with an inspector; pos are the positional arguments.
func inspectCmd(ctx context.Context, name string, args []string, stderr io.Writer, more func(*flag.FlagSet), do func(in *inspect.Inspector, pos []string) error) error {
	f := newROS2Flags(name, stderr)
	if more != nil {
		more(f.fs)
	}
	pos, err := f.parseArgs(args)
	if err != nil {
		return helpOK(err)
	}
	in, err := f.open(ctx, name)
	if err != nil {
		return err
	}
	defer in.Close()
	return cliErr(do(in, pos))
}

func ros2Topics(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	hidden, jsonOut := false, false
	return inspectCmd(ctx, "topics", args, stderr, func(fs *flag.FlagSet) {
		fs.BoolVar(&hidden, "include-hidden", false, "also list hidden topics (a name part starting with _, such as an action's)")
		fs.BoolVar(&jsonOut, "json", false, "print JSON (with each endpoint's Gid, type hash and QoS) instead of text")
	}, func(in *inspect.Inspector, _ []string) error {
		topics, err := in.Topics(ctx, inspect.Hidden(hidden))
		if err != nil {
			return err
		}
		if jsonOut {
			return writeJSON(stdout, topicsJSON(topics))
		}
		for _, t := range topics {
			fmt.Fprintf(stdout, "%s [%s]\n", t.Name, strings.Join(t.Types, ", "))
			printEndpoints(stdout, "publisher ", t.Publishers)
			printEndpoints(stdout, "subscriber", t.Subscribers)
		}
		return nil
	})
}

// printEndpoints prints one line for each endpoint: its role, node and
// DDS vendor.
func printEndpoints(w io.Writer, role string, es []graph.Endpoint) {
	for _, e := range es {
		fmt.Fprintf(w, "  %s %s (%s)\n", role, nodeOrUnknown(e.Node), graph.VendorName(e.Vendor))
	}
}

func nodeOrUnknown(n string) string {
	if n == "" {
		return "<node not announced>"
	}
	return n
}

// endpointJSON and topicJSON are the --json form of topics.
type endpointJSON struct {
	Node        string `json:"node,omitempty"`
	Vendor      string `json:"vendor"`
	GID         string `json:"gid"`
	TypeHash    string `json:"type_hash,omitempty"`
	Reliability string `json:"reliability"`
	Durability  string `json:"durability"`
	History     string `json:"history"`
}

// qosJSON names an endpoint's QoS as ros2/qos overrides spell it.
func qosJSON(q rtps.QoS) (rel, dur, hist string) {
	rel, dur, hist = "best_effort", "volatile", "keep_all"
	if q.Reliability == rtps.Reliable {
		rel = "reliable"
	}
	if q.Durability >= rtps.TransientLocal {
		dur = "transient_local"
	}
	if q.History == rtps.KeepLast {
		hist = fmt.Sprintf("keep_last %d", q.Depth)
	}
	return rel, dur, hist
}

type topicJSON struct {
	Name        string         `json:"name"`
	Types       []string       `json:"types"`
	Publishers  []endpointJSON `json:"publishers"`
	Subscribers []endpointJSON `json:"subscribers"`
}

// endpointsJSON is each endpoint's node, vendor, Gid, type hash and QoS.
func endpointsJSON(es []graph.Endpoint) []endpointJSON {
	out := make([]endpointJSON, 0, len(es))
	for _, e := range es {
		rel, dur, hist := qosJSON(e.QoS)
		out = append(out, endpointJSON{Node: e.Node, Vendor: graph.VendorName(e.Vendor), GID: e.GUID.String(), TypeHash: e.TypeHash,
			Reliability: rel, Durability: dur, History: hist})
	}
	return out
}

func topicsJSON(ts []graph.Topic) []topicJSON {
	out := make([]topicJSON, 0, len(ts))
	for _, t := range ts {
		out = append(out, topicJSON{Name: t.Name, Types: t.Types, Publishers: endpointsJSON(t.Publishers), Subscribers: endpointsJSON(t.Subscribers)})
	}
	return out
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// helpOK turns -h into success: the flag package printed the help.
func helpOK(err error) error {
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	return err
}

func ros2Nodes(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	jsonOut := false
	return inspectCmd(ctx, "nodes", args, stderr, func(fs *flag.FlagSet) {
		fs.BoolVar(&jsonOut, "json", false, "print JSON instead of text")
	}, func(in *inspect.Inspector, _ []string) error {
		nodes, err := in.Nodes(ctx)
		if err != nil {
			return err
		}
		if jsonOut {
			type nodeJSON struct {
				Name   string `json:"name"`
				Vendor string `json:"vendor"`
			}
			out := make([]nodeJSON, 0, len(nodes))
			for _, n := range nodes {
				out = append(out, nodeJSON{n.FullName(), graph.VendorName(n.Vendor)})
			}
			return writeJSON(stdout, out)
		}
		for _, n := range nodes {
			fmt.Fprintf(stdout, "%s (%s)\n", n.FullName(), graph.VendorName(n.Vendor))
		}
		return nil
	})
}

func ros2Echo(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f := newROS2Flags("echo", stderr)
	var o inspect.EchoOptions
	f.fs.IntVar(&o.Count, "count", 0, "exit after N messages (0: never)")
	f.fs.StringVar(&o.Type, "type", "", "message type (default: the type the topic's publishers announce)")
	f.fs.StringVar(&o.QoS.Profile, "qos-profile", "", "QoS profile: default, sensor_data, … (default: adapted to the publishers, as ros2 topic echo does)")
	f.fs.StringVar(&o.QoS.Reliability, "qos-reliability", "", "reliable or best_effort")
	f.fs.StringVar(&o.QoS.Durability, "qos-durability", "", "volatile or transient_local")
	pos, err := f.parseArgs(args)
	if err != nil {
		return helpOK(err)
	}
	if len(pos) != 1 || o.Count < 0 {
		return usageError{"usage: actbridge ros2 echo TOPIC [--count N ≥ 0] [flags]"}
	}
	in, err := f.open(ctx, "echo")
	if err != nil {
		return err
	}
	defer in.Close()
	o.Skipped = func(err error) { fmt.Fprintf(stderr, "actbridge: %v\n", err) }
	var line []byte
	return cliErr(in.Echo(ctx, pos[0], o, func(m *cdr.Message) error {
		line = append(m.AppendJSON(line[:0]), '\n')
		_, err := stdout.Write(line)
		return err
	}))
}
