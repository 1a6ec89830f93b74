// Command planner is a scripted planner for actbridge: the whole loop an
// LLM-driven planner runs, with the model's choices replaced by a fixed
// pick-like sequence. It describes the robot, then for each step previews
// the motion, prints the preview, confirms it, and waits for its end with
// progress; any error stops it. Each step is previewed only after the one
// before ended, because a preview is bound to the robot state it was
// computed on (a robot that moved since answers stale_preview).
//
//	go run ./examples/planner                                # the demo bridge, http://127.0.0.1:8765/mcp
//	ACTBRIDGE_PLANNER_TOKEN=... go run ./examples/planner --url https://robot:8765/mcp
//	go run ./examples/planner -- bin/actbridge serve --stdio --config launch/robots/sim.yaml
//
// It uses only the official MCP Go SDK client.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	url := flag.String("url", "http://127.0.0.1:8765/mcp", "the bridge's MCP endpoint (streamable HTTP); the planner token is read from ACTBRIDGE_PLANNER_TOKEN")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: planner [--url URL] [-- command to run as a stdio MCP server...]\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	out := &printer{w: os.Stdout}
	if err := run(ctx, out, *url, os.Getenv("ACTBRIDGE_PLANNER_TOKEN"), flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "planner: stopped:", err)
		os.Exit(1)
	}
}

// printer serialises output: progress notifications arrive on the SDK's
// goroutine while the loop prints.
type printer struct {
	mu sync.Mutex
	w  io.Writer

	// last progress printed, so a wait prints a line per state and per quarter.
	lastMsg  string
	lastDone float64
}

func (p *printer) printf(format string, a ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.w, format, a...)
}

func (p *printer) progress(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
	done := req.Params.Progress / max(req.Params.Total, 1e-9)
	p.mu.Lock()
	defer p.mu.Unlock()
	if req.Params.Message == p.lastMsg && done < p.lastDone+0.25 {
		return
	}
	p.lastMsg, p.lastDone = req.Params.Message, done
	fmt.Fprintf(p.w, "    progress %3.0f%%  %s\n", 100*done, req.Params.Message)
}

// step is one tool call the planner decides on.
type step struct {
	why  string
	tool string
	args map[string]any
}

func run(ctx context.Context, out *printer, url, token string, command []string) error {
	client := mcp.NewClient(&mcp.Implementation{Name: "actbridge-example-planner", Version: "1"}, &mcp.ClientOptions{
		// motion_status waits send progress notifications when the call
		// carries a progress token (see wait).
		ProgressNotificationHandler: out.progress,
	})
	var transport mcp.Transport = &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: bearerClient(token)}
	if len(command) > 0 {
		transport = &mcp.CommandTransport{Command: exec.Command(command[0], command[1:]...)}
	}
	cs, err := client.Connect(ctx, transport, nil)
	if err != nil {
		return fmt.Errorf("connecting: %w", err)
	}
	defer cs.Close()
	pl := &planner{cs: cs, out: out}

	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		return err
	}
	out.printf("connected: %d tools\n", len(tools.Tools))
	desc, err := pl.call(ctx, "robot_describe", map[string]any{})
	if err != nil {
		return err
	}
	printRobot(out, desc)

	// An LLM-driven planner replaces plan(): it gives the model the tool
	// list (or `actbridge tools export --format openai|anthropic`), the
	// task and robot_describe's answer, and each turn runs the tool call
	// the model returns — previews, confirmations and waits alike — and
	// hands the result (or the error object, with its hint) back to it.
	var motions []string
	for i, s := range plan(desc) {
		out.printf("\nstep %d: %s\n  %s %s\n", i+1, s.why, s.tool, compact(s.args))
		id, err := pl.move(ctx, s)
		if err != nil {
			return fmt.Errorf("step %d (%s): %w", i+1, s.tool, err)
		}
		motions = append(motions, id)
	}
	out.printf("\ndone: %d motions: %s\n", len(motions), strings.Join(motions, " "))
	return nil
}

// plan is the scripted stand-in for the model: approach, grasp, lift, and
// drive away, with every target taken inside the limits robot_describe
// reports.
func plan(desc map[string]any) []step {
	limits := map[string][2]float64{}
	for _, j := range list(desc["joints"]) {
		m, _ := j.(map[string]any)
		lo, okLo := m["lower"].(float64)
		hi, okHi := m["upper"].(float64)
		if name, _ := m["name"].(string); okLo && okHi {
			limits[name] = [2]float64{lo, hi}
		}
	}
	within := func(joint string, v float64) float64 {
		if l, ok := limits[joint]; ok {
			return min(max(v, l[0]+0.05), l[1]-0.05)
		}
		return v
	}
	arm := func(pan, lift, elbow float64) map[string]any {
		return map[string]any{"positions": map[string]any{
			"shoulder_pan_joint":  within("shoulder_pan_joint", pan),
			"shoulder_lift_joint": within("shoulder_lift_joint", lift),
			"elbow_joint":         within("elbow_joint", elbow),
		}}
	}
	return []step{
		{"reach over the object", "arm_move_joints", arm(0.4, -0.6, -0.8)},
		{"close the gripper on it", "gripper_move", map[string]any{"position": 0.0, "max_effort": 20.0}},
		// A Cartesian goal: the bridge solves the joints (IK) along the line.
		{"lift it 10 cm straight up", "arm_move_relative", map[string]any{"translation": []float64{0, 0, 0.1}, "path": "line"}},
		{"drive to the drop-off", "base_navigate", map[string]any{"x": 0.5, "y": 0.2, "yaw": 0.0}},
	}
}

// planner holds the session and stops at the first error.
type planner struct {
	cs  *mcp.ClientSession
	out *printer
}

// toolError is the bridge's error object: {code, message, hint, ...}.
type toolError struct {
	Tool    string `json:"-"`
	Code    string `json:"code"`
	Message string `json:"message"`
	Hint    string `json:"hint"`
}

func (e *toolError) Error() string {
	s := fmt.Sprintf("%s: %s: %s", e.Tool, e.Code, e.Message)
	if e.Hint != "" {
		s += " (hint: " + e.Hint + ")"
	}
	return s
}

// call runs one tool; a result with isError becomes a *toolError.
func (p *planner) call(ctx context.Context, tool string, args map[string]any) (map[string]any, error) {
	return p.callWith(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
}

func (p *planner) callWith(ctx context.Context, params *mcp.CallToolParams) (map[string]any, error) {
	res, err := p.cs.CallTool(ctx, params)
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		return nil, err
	}
	if res.IsError {
		e := &toolError{Tool: params.Name}
		if json.Unmarshal(b, e) != nil || e.Code == "" {
			e.Code, e.Message = "error", string(b)
		}
		return nil, e
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	return m, nil
}

// move previews one step, shows the preview, confirms exactly that preview
// and waits for the motion's end. It returns the motion id.
func (p *planner) move(ctx context.Context, s step) (string, error) {
	pv, err := p.call(ctx, s.tool, s.args)
	if err != nil {
		return "", err
	}
	printPreview(p.out, pv)
	// Here an LLM planner (or its user) decides whether this is what it
	// meant; a preview the policy leaves to an operator cannot be
	// confirmed by the planner at all.
	if pv["confirmed_by"] == "operator" {
		return "", fmt.Errorf("policy: an operator confirms %v motions (console); preview %v is waiting there", pv["actuator"], pv["preview_id"])
	}
	c, err := p.call(ctx, "motion_confirm", map[string]any{"preview_id": pv["preview_id"]})
	if err != nil {
		return "", err
	}
	id, _ := c["motion_id"].(string)
	p.out.printf("  confirmed: motion %s (%v)\n", id, c["state"])
	return id, p.wait(ctx, id)
}

// wait follows a motion to its end. Cancelling this wait (Ctrl-C, a
// disconnect) never stops the motion: only motion_cancel or robot_stop do,
// so on interrupt the planner cancels it explicitly.
func (p *planner) wait(ctx context.Context, id string) error {
	for {
		params := &mcp.CallToolParams{Name: "motion_status", Arguments: map[string]any{"motion_id": id, "wait_s": 30, "until": "end"}}
		params.SetProgressToken("wait-" + id)
		st, err := p.callWith(ctx, params)
		if ctx.Err() != nil {
			return p.cancel(id, ctx.Err())
		}
		if err != nil {
			return err
		}
		if st["terminal"] == true || st["state"] == "unknown" {
			if st["state"] != "succeeded" {
				return fmt.Errorf("motion %s ended %v: %v", id, st["state"], st["error"])
			}
			p.out.printf("  succeeded: motion %s\n", id)
			return nil
		}
	}
}

func (p *planner) cancel(id string, why error) error {
	ctx, done := context.WithTimeout(context.Background(), 5*time.Second)
	defer done()
	if _, err := p.call(ctx, "motion_cancel", map[string]any{"motion_id": id}); err != nil {
		return errors.Join(why, fmt.Errorf("motion_cancel %s: %w", id, err))
	}
	return fmt.Errorf("%w: motion %s canceled", why, id)
}

func printRobot(out *printer, d map[string]any) {
	for _, a := range list(d["actuators"]) {
		m, _ := a.(map[string]any)
		out.printf("  actuator %v (%v) connected=%v\n", m["name"], m["kind"], m["connected"])
	}
	for _, j := range list(d["joints"]) {
		m, _ := j.(map[string]any)
		bounds := "unbounded"
		if _, ok := m["lower"].(float64); ok {
			bounds = fmt.Sprintf("[%v, %v]", m["lower"], m["upper"])
		}
		out.printf("  joint %-20v %-18s max %v /s\n", m["name"], bounds, m["max_velocity"])
	}
	if e, ok := d["estop"].(map[string]any); ok {
		out.printf("  e-stop latched=%v, speed scale %v\n", e["latched"], d["speed_scale"])
	}
}

func printPreview(out *printer, pv map[string]any) {
	out.printf("  preview %.24v… of %v: %v s, confirmed by %v, expires %v\n", pv["preview_id"], pv["actuator"], pv["duration_s"], pv["confirmed_by"], pv["expires_at"])
	for _, j := range list(pv["joints"]) {
		m, _ := j.(map[string]any)
		if num(m["delta"]) == 0 {
			continue
		}
		out.printf("    %-20v %8.4f → %-8.4f peak %.3f /s (%.0f%% of limit)\n", m["joint"], num(m["from"]), num(m["to"]), num(m["peak_velocity"]), num(m["percent_of_limit"]))
	}
	rest := map[string]any{} // what else this kind of preview shows (a base goal, a service request)
	for k, v := range pv {
		switch k {
		case "preview_id", "tool", "actuator", "state_digest", "expires_at", "confirm_with", "confirmed_by", "warnings", "impact", "joints", "targets", "duration_s":
		default:
			rest[k] = v
		}
	}
	if len(rest) > 0 {
		out.printf("    %.300s\n", compact(rest))
	}
	out.printf("    impact %s\n", compact(pv["impact"]))
	for _, w := range list(pv["warnings"]) {
		out.printf("    warning: %v\n", w)
	}
}

func list(v any) []any { l, _ := v.([]any); return l }

func num(v any) float64 { f, _ := v.(float64); return f }

func compact(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// bearerClient sends the planner token on every request (none in the
// loopback demo).
func bearerClient(token string) *http.Client {
	if token == "" {
		return nil
	}
	return &http.Client{Transport: bearer{token: token, next: http.DefaultTransport}}
}

type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}
