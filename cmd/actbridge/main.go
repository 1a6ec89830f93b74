// Command actbridge exposes a ROS robot's actions as MCP tools for an LLM
// planner, with previews, confirmation, limits and a durable motion store.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/actbridge/actbridge/version"
)

const usage = `actbridge — a safe bridge from an LLM planner to a ROS robot

Usage:
  actbridge serve [flags]                 join the robot's ROS graph and serve MCP (HTTP /mcp, or --stdio),
                                          /metrics, /console and /healthz
  actbridge tools export --format F       print the tool catalogue: mcp, openai or anthropic
  actbridge check-config [--config F]     load and validate a robot config and its limits, offline
  actbridge doctor [--config F] [--json]  check the robot against the config: servers, publishers, types,
                                          QoS, type hashes, URDF joints, clock; a fix for each failure
  actbridge ros2 <command>                look at a ROS 2 graph without ROS 2 installed: topics, nodes,
                                          services, actions, params, echo, call ("actbridge ros2 -h")
  actbridge motions [--store F] [--json]  list motions recorded in a store; while a bridge holds the file,
                                          asks it (--bridge URL, operator token in ACTBRIDGE_OPERATOR_TOKEN)
  actbridge audit --jsonl [--store F]     print the audit log as JSON lines (same: file, or the running bridge)
  actbridge version                       print the version, the commit and the build date

Run "actbridge <command> -h" for a command's flags. Defaults work against
"make demo" from a checkout (--config launch/robots/sim-ros2.yaml, ROS 2).
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	var ue usageError
	switch {
	case err == nil:
	case errors.As(err, &ue):
		fmt.Fprintln(os.Stderr, "actbridge:", err)
		os.Exit(2)
	default:
		fmt.Fprintln(os.Stderr, "actbridge:", err)
		os.Exit(1)
	}
}

// usageError is a mistake in the command line (exit status 2).
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

// run runs one command; "-h" on a command prints its flags and runs nothing.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if err := dispatch(ctx, args, stdout, stderr); !errors.Is(err, flag.ErrHelp) {
		return err
	}
	return nil
}

func dispatch(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(stdout, usage)
		return nil
	}
	switch args[0] {
	case "serve":
		return serve(ctx, args[1:], stdout, stderr)
	case "tools":
		if len(args) < 2 || args[1] != "export" {
			return usageError{"usage: actbridge tools export --format mcp|openai|anthropic"}
		}
		return toolsExport(args[2:], stdout)
	case "check-config":
		return checkConfig(args[1:], stdout)
	case "motions":
		return motionsCmd(args[1:], stdout)
	case "audit":
		return auditCmd(args[1:], stdout)
	case "doctor":
		return doctorCmd(ctx, args[1:], stdout, stderr)
	case "ros2":
		return ros2Cmd(ctx, args[1:], stdout, stderr)
	case "version", "--version":
		_, err := fmt.Fprintln(stdout, "actbridge", version.Get())
		return err
	}
	return usageError{fmt.Sprintf("unknown command %q\n%s", args[0], usage)}
}

func newFlags(name string, out io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("actbridge "+name, flag.ContinueOnError)
	fs.SetOutput(out)
	return fs
}

func parse(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err // the flags are printed; the caller must not go on
		}
		return usageError{err.Error()}
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Sprintf("unexpected argument %q", fs.Arg(0))}
	}
	return nil
}
