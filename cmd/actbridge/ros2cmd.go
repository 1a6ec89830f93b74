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
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/actbridge/actbridge/config"
	"github.com/actbridge/actbridge/msgs/ros2"
	"github.com/actbridge/actbridge/ros2"
	"github.com/actbridge/actbridge/ros2/graph"
	"github.com/actbridge/actbridge/ros2/names"
	"github.com/actbridge/actbridge/ros2/node"
	"github.com/actbridge/actbridge/ros2/qos"
	"github.com/actbridge/actbridge/rtps"
	"github.com/actbridge/actbridge/rtps/wire"
)

const ros2Usage = `actbridge ros2 — look at a ROS 2 graph without ROS 2 installed

Usage:
  actbridge ros2 topics [flags]              each topic with its type, and the node and DDS vendor
                                             of each publisher and subscriber
  actbridge ros2 nodes [flags]               each node with the DDS vendor of its participant
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

// settleTime is how long the graph must stay unchanged before topics and
// nodes print it: participants announce their endpoints one by one.
const settleTime = 500 * time.Millisecond

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

// open starts a Context from the environment and the flags.
func (f *ros2Flags) open(ctx context.Context) (*node.Context, node.Discovery, error) {
	d, err := node.DiscoveryFromEnv(os.LookupEnv)
	if err != nil {
		return nil, d, err
	}
	if *f.config != "" {
		cfg, err := config.Load(*f.config)
		if err != nil {
			return nil, d, err
		}
		if cfg.Transport != config.TransportROS2 {
			return nil, d, usageError{fmt.Sprintf("--config %s: its transport is %s; the ros2 commands read a config of transport ros2", *f.config, cfg.Transport)}
		}
		if d, err = ros2.Discovery(cfg.ROS2, os.LookupEnv); err != nil {
			return nil, d, err
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
			return nil, d, usageError{fmt.Sprintf("--interface: %v", err)}
		}
	}
	distro, err := msgs.ParseDistro(*f.distro)
	if err != nil {
		return nil, d, usageError{err.Error()}
	}
	var remap names.Remap
	for _, s := range f.remapping {
		r, err := names.ParseRule(s)
		if err != nil {
			return nil, d, usageError{fmt.Sprintf("-r %s: %v", s, err)}
		}
		remap = append(remap, r)
	}
	d = d.ForTools()
	c, err := node.NewContext(ctx, node.Options{Distro: distro, Discovery: d, Remap: remap})
	return c, d, err
}

// openNode opens a Context with a node of the command's own (named after
// cmd and the process) and resolves name, a topic or a service, with it.
// Close the Context when err is nil.
func (f *ros2Flags) openNode(ctx context.Context, cmd, name string, service bool) (*node.Context, node.Discovery, *node.Node, string, error) {
	c, d, err := f.open(ctx)
	if err != nil {
		return nil, d, nil, "", err
	}
	n, err := c.NewNode(fmt.Sprintf("_actbridge_%s_%d", cmd, os.Getpid()), "/")
	if err != nil {
		c.Close()
		return nil, d, nil, "", err
	}
	resolved, err := n.Resolve(name, service)
	if err != nil {
		c.Close()
		return nil, d, nil, "", usageError{err.Error()}
	}
	return c, d, n, resolved, nil
}

// notFound is the one-line reason for an empty answer, with what to set
// when discovery shows why (node.Discovery.Advice).
func notFound(what string, d node.Discovery, timeout time.Duration, c *node.Context) error {
	err := fmt.Errorf("no %s found on domain %d within %v (discovery %s; %d other participants seen)",
		what, d.Domain, timeout, d.Range, len(c.Participant().Participants()))
	if a := c.Advice(); a != "" {
		err = fmt.Errorf("%w: %s", err, a)
	}
	return err
}

// settled waits until cond holds, then until the graph stays unchanged
// for settleTime (or ctx ends), and returns it.
func settled(ctx context.Context, c *node.Context, cond func(graph.Graph) bool) (graph.Graph, error) {
	g, err := c.WaitGraph(ctx, cond)
	if err != nil {
		return g, err
	}
	for {
		quiet, cancel := context.WithTimeout(ctx, settleTime)
		next, err := c.WaitGraph(quiet, func(n graph.Graph) bool { return !reflect.DeepEqual(n, g) })
		cancel()
		if err != nil {
			return g, nil
		}
		g = next
	}
}

// visibleTopics are the topics `ros2 topic list` shows: not hidden, and
// with an endpoint.
func visibleTopics(g graph.Graph) []graph.Topic {
	return slices.DeleteFunc(slices.Clone(g.Topics), func(t graph.Topic) bool { return names.IsHidden(t.Name) })
}

// settledGraph parses a graph command's flags (more adds its own), and returns the graph once
// cond holds and it has settled, or the reason nothing was found.
func settledGraph(ctx context.Context, name, what string, args []string, stderr io.Writer, cond func(graph.Graph) bool, more ...func(*flag.FlagSet)) (graph.Graph, error) {
	f := newROS2Flags(name, stderr)
	for _, add := range more {
		add(f.fs)
	}
	if _, err := f.parseArgs(args); err != nil {
		return graph.Graph{}, err
	}
	c, d, err := f.open(ctx)
	if err != nil {
		return graph.Graph{}, err
	}
	defer c.Close()
	wait, cancel := context.WithTimeout(ctx, *f.timeout)
	defer cancel()
	g, err := settled(wait, c, cond)
	if err != nil {
		return g, notFound(what, d, *f.timeout, c)
	}
	return g, nil
}

func ros2Topics(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	hidden, jsonOut := false, false
	visible := func(g graph.Graph) []graph.Topic {
		if hidden {
			return g.Topics
		}
		return visibleTopics(g)
	}
	g, err := settledGraph(ctx, "topics", "ROS 2 topic", args, stderr, func(g graph.Graph) bool { return len(visible(g)) > 0 },
		func(fs *flag.FlagSet) {
			fs.BoolVar(&hidden, "include-hidden", false, "also list hidden topics (a name part starting with _, such as an action's)")
			fs.BoolVar(&jsonOut, "json", false, "print JSON (with each endpoint's Gid, type hash and QoS) instead of text")
		})
	if err != nil {
		return helpOK(err)
	}
	topics := visible(g)
	if jsonOut {
		return writeJSON(stdout, topicsJSON(topics))
	}
	for _, t := range topics {
		fmt.Fprintf(stdout, "%s [%s]\n", t.Name, strings.Join(t.Types, ", "))
		for _, e := range t.Publishers {
			fmt.Fprintf(stdout, "  publisher  %s (%s)\n", nodeOrUnknown(e.Node), graph.VendorName(e.Vendor))
		}
		for _, e := range t.Subscribers {
			fmt.Fprintf(stdout, "  subscriber %s (%s)\n", nodeOrUnknown(e.Node), graph.VendorName(e.Vendor))
		}
	}
	return nil
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

func topicsJSON(ts []graph.Topic) []topicJSON {
	eps := func(es []graph.Endpoint) []endpointJSON {
		out := make([]endpointJSON, 0, len(es))
		for _, e := range es {
			rel, dur, hist := qosJSON(e.QoS)
			out = append(out, endpointJSON{Node: e.Node, Vendor: graph.VendorName(e.Vendor), GID: e.GUID.String(), TypeHash: e.TypeHash,
				Reliability: rel, Durability: dur, History: hist})
		}
		return out
	}
	out := make([]topicJSON, 0, len(ts))
	for _, t := range ts {
		out = append(out, topicJSON{Name: t.Name, Types: t.Types, Publishers: eps(t.Publishers), Subscribers: eps(t.Subscribers)})
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
	g, err := settledGraph(ctx, "nodes", "ROS 2 node", args, stderr, func(g graph.Graph) bool { return len(g.Nodes) > 0 },
		func(fs *flag.FlagSet) { fs.BoolVar(&jsonOut, "json", false, "print JSON instead of text") })
	if err != nil {
		return helpOK(err)
	}
	if jsonOut {
		type nodeJSON struct {
			Name   string `json:"name"`
			Vendor string `json:"vendor"`
		}
		out := make([]nodeJSON, 0, len(g.Nodes))
		for _, n := range g.Nodes {
			out = append(out, nodeJSON{n.FullName(), graph.VendorName(n.Vendor)})
		}
		return writeJSON(stdout, out)
	}
	for _, n := range g.Nodes {
		fmt.Fprintf(stdout, "%s (%s)\n", n.FullName(), graph.VendorName(n.Vendor))
	}
	return nil
}

func ros2Echo(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f := newROS2Flags("echo", stderr)
	count := f.fs.Int("count", 0, "exit after N messages (0: never)")
	typ := f.fs.String("type", "", "message type (default: the type the topic's publishers announce)")
	var over qos.Override
	f.fs.StringVar(&over.Profile, "qos-profile", "", "QoS profile: default, sensor_data, … (default: adapted to the publishers, as ros2 topic echo does)")
	f.fs.StringVar(&over.Reliability, "qos-reliability", "", "reliable or best_effort")
	f.fs.StringVar(&over.Durability, "qos-durability", "", "volatile or transient_local")
	pos, err := f.parseArgs(args)
	if err != nil {
		return helpOK(err)
	}
	if len(pos) != 1 || *count < 0 {
		return usageError{"usage: actbridge ros2 echo TOPIC [--count N ≥ 0] [flags]"}
	}
	c, d, n, topic, err := f.openNode(ctx, "echo", pos[0], false)
	if err != nil {
		return err
	}
	defer c.Close()
	wait, cancel := context.WithTimeout(ctx, *f.timeout)
	defer cancel()
	g, err := c.WaitGraph(wait, func(g graph.Graph) bool {
		t, ok := g.Topic(topic)
		return ok && len(t.Publishers) > 0
	})
	if err != nil {
		return notFound("publisher of "+topic, d, *f.timeout, c)
	}
	t, _ := g.Topic(topic)
	if *typ == "" {
		if len(t.Types) != 1 {
			return fmt.Errorf("%s has publishers of several types %v: choose one with --type", topic, t.Types)
		}
		*typ = t.Types[0]
	}
	profile, err := over.Apply(qos.Adapted(t.PublisherQoS()))
	if err != nil {
		return usageError{err.Error()}
	}
	sub, err := n.NewSubscription(topic, *typ, profile, node.SubscriptionOptions{})
	if err != nil {
		return err
	}
	// A publisher that QoS keeps from matching is known by discovery at
	// once: say so after a settling second rather than the whole timeout.
	quick, cancelQuick := context.WithTimeout(wait, 2*settleTime)
	err = sub.WaitMatched(quick, 1)
	cancelQuick()
	if err != nil && !errors.Is(err, node.ErrIncompatibleQoS) {
		err = sub.WaitMatched(wait, 1)
	}
	if err != nil {
		if errors.Is(err, node.ErrIncompatibleQoS) {
			return err
		}
		return fmt.Errorf("no publisher of %s matched within %v: %v", topic, *f.timeout, err)
	}
	// Same type name, another definition: the samples would decode as garbage.
	if mm := sub.TypeMismatches(); len(mm) > 0 {
		return fmt.Errorf("%s: %s (another distro's definition? see --distro)", topic, mm[0])
	}
	var line []byte
	for got := 0; *count == 0 || got < *count; {
		each, cancel := context.WithTimeout(ctx, *f.timeout)
		m, info, err := sub.Take(each)
		cancel()
		switch {
		case errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil:
			return fmt.Errorf("no message on %s within %v (%d of %d received)", topic, *f.timeout, got, *count)
		case ctx.Err() != nil:
			return nil // interrupted
		case err != nil && info.Writer == (wire.GUID{}):
			return err
		case err != nil:
			fmt.Fprintf(stderr, "actbridge: a sample from %v is not a %s: %v\n", info.Writer, *typ, err)
			continue
		}
		line = append(m.AppendJSON(line[:0]), '\n')
		if _, err := stdout.Write(line); err != nil {
			return err
		}
		got++
	}
	return nil
}
