package main

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/bridge"
	"github.com/actbridge/actbridge/config"
	"github.com/actbridge/actbridge/console"
	"github.com/actbridge/actbridge/inflight"
	"github.com/actbridge/actbridge/metrics"
	"github.com/actbridge/actbridge/version"
)

func defaultDataDir() string {
	if d := os.Getenv("ACTBRIDGE_DATA_DIR"); d != "" {
		return d
	}
	if d, err := os.UserHomeDir(); err == nil {
		return filepath.Join(d, ".local", "share", "actbridge")
	}
	return ".actbridge"
}

type serveFlags struct {
	config, listen, dataDir, store      string
	stdio, lazy                         bool
	ttl, staleAfter, waitMaster         time.Duration
	plannerTokenFile, operatorTokenFile string
	maxBody                             int64
	pprof                               bool
}

// serveFlagSet declares serve's flags into f.
func serveFlagSet(f *serveFlags, stderr io.Writer) *flag.FlagSet {
	fs := newFlags("serve", stderr)
	fs.StringVar(&f.config, "config", demoConfig, "robot config (actions, joints, policy, base caps); the default is the ROS 2 demo's, in a checkout")
	fs.StringVar(&f.listen, "listen", "127.0.0.1:8765", "HTTP address for /mcp, /metrics, /console, /healthz")
	fs.StringVar(&f.dataDir, "data-dir", defaultDataDir(), "where the store, the preview key and large outputs live")
	fs.StringVar(&f.store, "store", "", "the motion store file (default <data-dir>/actbridge.db)")
	fs.BoolVar(&f.stdio, "stdio", false, "serve MCP on stdin/stdout as well (HTTP still serves metrics and the console)")
	fs.BoolVar(&f.lazy, "lazy", false, "list only core tools; others are found with tools_search")
	fs.DurationVar(&f.ttl, "preview-ttl", 60*time.Second, "how long a preview can be confirmed")
	fs.DurationVar(&f.staleAfter, "stale-after", time.Second, "joint states older than this are stale")
	fs.DurationVar(&f.waitMaster, "wait-master", 0, "wait this long for the ROS master at start (0: fail at once)")
	fs.StringVar(&f.plannerTokenFile, "planner-token-file", "", "file holding the planner's bearer token (or ACTBRIDGE_PLANNER_TOKEN)")
	fs.StringVar(&f.operatorTokenFile, "operator-token-file", "", "file holding the operator's bearer token (or ACTBRIDGE_OPERATOR_TOKEN)")
	fs.Int64Var(&f.maxBody, "max-body", 1<<20, "largest MCP request body in bytes")
	fs.BoolVar(&f.pprof, "pprof", false, "serve net/http/pprof under /debug/pprof/ (loopback listen addresses only)")
	return fs
}

func serve(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var f serveFlags
	fs := serveFlagSet(&f, stderr)
	if err := parse(fs, args); err != nil {
		return err
	}
	tokens, err := loadTokens(f)
	if err != nil {
		return usageError{err.Error()}
	}
	if err := tokensFor(f.listen, tokens); err != nil {
		return err
	}
	tokens.OpenPlanner = !tokens.Any()
	if err := defaultConfigHere(fs, f.config); err != nil {
		return err
	}
	cfg, err := config.Load(f.config)
	if err != nil {
		return err
	}
	gcSettings(os.Getenv) // a bridge about to serve, not a refused start
	if err := os.MkdirAll(f.dataDir, 0o750); err != nil {
		return fmt.Errorf("data dir: %w", err)
	}
	if f.store == "" {
		f.store = filepath.Join(f.dataDir, "actbridge.db")
	}
	key, err := previewKey(filepath.Join(f.dataDir, "preview.key"))
	if err != nil {
		return err
	}
	operatorTokenFile := ""
	if tokens.Operator == "" { // loopback only (tokensFor): no local process is the operator without it
		operatorTokenFile = filepath.Join(f.dataDir, operatorTokenName)
		if tokens.Operator, err = newOperatorToken(operatorTokenFile); err != nil {
			return err
		}
	} else {
		_ = os.Remove(filepath.Join(f.dataDir, operatorTokenName)) // an earlier demo's, no longer valid
	}

	var actuatorNames []string
	for _, a := range cfg.Actuators {
		actuatorNames = append(actuatorNames, a.Name)
	}
	mx := metrics.New(metrics.Options{Actuators: actuatorNames})

	sto := openStores(f.store, mx, stderr)
	st, store := sto.file, sto.motions
	if st != nil {
		defer st.Close()
	}

	tr, err := openTransport(ctx, cfg, f.waitMaster, stderr)
	if err != nil {
		return err
	}
	defer tr.close()
	robot := tr.robot
	urdf, err := robotDescription(ctx, tr, f.waitMaster, stderr)
	if err != nil {
		return err
	}
	model, err := loadModel(cfg, []byte(urdf))
	if err != nil {
		return err
	}
	stopFrames, err := watchFrames(ctx, model, robot, stderr)
	if err != nil {
		return err
	}
	defer stopFrames()
	consoleURL := "http://" + f.listen + "/console"
	auditor := inflight.NewAuditWriter(st)
	auditCtx, stopAudit := context.WithCancel(ctx)
	auditDone := make(chan struct{})
	go func() { defer close(auditDone); auditor.Run(auditCtx) }()
	defer func() { stopAudit(); <-auditDone }() // before the store closes: what is queued is written
	approvals := &bridge.Approvals{Key: key, Now: time.Now, Elicit: cfg.OperatorViaElicitation, Denials: sto.denials}
	ts, err := buildTools(model, robot, store, sto.audit, key, toolOptions{dataDir: f.dataDir, ttl: f.ttl, staleAfter: f.staleAfter, consoleURL: consoleURL, lazy: f.lazy, estop: sto.estop,
		lifetime: ctx, motionChanged: mx.MotionChanged, approvals: approvals, observer: observers{auditCalls{auditor}, mx}, idem: sto.idem})
	if err != nil {
		return err
	}
	if st != nil { // a store that could not open latched already (RestoreEStop)
		// Not cut short by a Ctrl-C during start-up: a run half recorded
		// would only latch the next start for a confusing reason.
		if _, err := ts.estop.StartRun(context.WithoutCancel(ctx), os.Getpid()); err != nil {
			fmt.Fprintf(stderr, "actbridge: recording this run in the store: %v\n", err)
		}
		// Registered before the server's shutdown, so it runs after it
		// (calls still running then write their latch first); before the
		// store closes. A panic is no clean end: the next start latches.
		defer func() {
			if p := recover(); p != nil {
				panic(p)
			}
			ectx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			defer cancel()
			if err := ts.estop.EndRun(ectx); err != nil {
				fmt.Fprintf(stderr, "actbridge: this run's end was not recorded (%v): the next start latches the e-stop\n", err)
			}
		}()
	}
	if ts.estopErr != nil {
		fmt.Fprintf(stderr, "actbridge: %v; starting with the e-stop latched\n", ts.estopErr)
	} else if l, ev, reason := ts.estop.State(); l {
		fmt.Fprintf(stderr, "actbridge: e-stop event %d is latched (%s): an operator calls estop_reset\n", ev, reason)
	}
	if w, ok := tr.describer.(descriptionWatcher); ok {
		wctx, stopWatch := context.WithCancel(ctx)
		watched := make(chan struct{})
		go func() {
			defer close(watched)
			if err := w.WatchRobotDescription(wctx, ts.description.Observe, ts.description.SetAmbiguous); err != nil && wctx.Err() == nil {
				fmt.Fprintf(stderr, "actbridge: the robot description watch stopped: %v; a changed description is no longer seen\n", err)
			}
		}()
		defer func() { stopWatch(); <-watched }()
	}
	// The console's denial is reported like a call; name it so it is not "unregistered".
	mx.SetTools(append(metrics.ToolsOf(ts.pipeline.Registry), metrics.ToolInfo{Name: console.DenyTool, Tier: bridge.TierWrite,
		Codes: []bridge.Code{bridge.CodeNotFound, bridge.CodeInvalidArgument, bridge.CodePreviewExpired, bridge.CodeUnavailable}}))
	if st != nil {
		if open, err := st.NonTerminal(); err == nil {
			for _, mo := range open {
				mx.MotionChanged(mo)
			}
		}
	}
	mx.SetHealth(metrics.HealthFrom(metrics.Sources{
		Robot:           robot,
		EStopLatched:    func() bool { l, _, _ := ts.estop.State(); return l },
		Reregistrations: tr.reregistrations,
		DDS:             tr.dds,
		Store:           sto.health,
	}))
	if st != nil {
		if err := ts.motions.Start(); err != nil {
			return err
		}
	}
	if st != nil {
		go st.RunRetention(ctx, time.Hour)
		go releaseMapped(ctx, st, time.Second)
	}

	front := &bridge.Front{Pipeline: ts.pipeline, Lazy: f.lazy, Name: "actbridge", Version: version.Get().Version,
		Instructions: "Read robot_describe first. Motions are previewed by arm_*/gripper_*/base_* tools and run only through motion_confirm(preview_id); follow them with motion_status. robot_stop always works.",
		OnSessionEnd: ts.motions.SessionEnded, ServerOptions: ts.events.ServerOptions, Images: ts.images}
	ts.events.Attach(front.Server(), store)
	var graph actuators.Graph // a transport implements what it can
	if g, ok := robot.(actuators.Graph); ok {
		graph = g
	}
	go func() {
		_ = ts.events.Run(ctx, bridge.EventSources{Robot: robot, EStop: ts.estop.State, ROS: graph, Conditions: ts.conditions})
	}()
	mux, err := serveMux(f, front.HTTPHandler(tokens, f.maxBody), ts.pipeline, st, tokens, mx, func() any { return health(tr, store) })
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", f.listen)
	if err != nil {
		return fmt.Errorf("listen %s: %w", f.listen, err)
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	defer func() {
		sctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		if srv.Shutdown(sctx) != nil {
			_ = srv.Close() // streams still open: cut them, so no new call starts
		}
	}()

	auth := "bearer tokens required"
	switch {
	case tokens.OpenPlanner:
		auth = "loopback demo: the planner needs no token; the operator's token is in " + operatorTokenFile
	case operatorTokenFile != "":
		auth = "bearer tokens required; the operator's token is in " + operatorTokenFile
	}
	fmt.Fprintf(stderr, "actbridge %s serving %s: MCP http://%s/mcp, metrics http://%s/metrics, console %s; %s; %d tools; store %s\n",
		version.Get(), tr.where, f.listen, f.listen, consoleURL, auth, len(ts.pipeline.Registry.Tools()), f.store)
	if f.stdio {
		err := front.ServeStdio(ctx)
		if err != nil && !errors.Is(err, context.Canceled) {
			return err
		}
		return nil
	}
	<-ctx.Done()
	return nil
}

func loopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// readToken reads a bearer token from file, or from the environment
// variable envName when no file is given.
func readToken(file, envName string) (string, error) {
	if file != "" {
		b, err := os.ReadFile(file)
		if err != nil {
			return "", fmt.Errorf("token file: %w", err)
		}
		return strings.TrimSpace(string(b)), nil
	}
	return os.Getenv(envName), nil
}

func loadTokens(f serveFlags) (bridge.Tokens, error) {
	p, err := readToken(f.plannerTokenFile, "ACTBRIDGE_PLANNER_TOKEN")
	if err != nil {
		return bridge.Tokens{}, err
	}
	o, err := readToken(f.operatorTokenFile, "ACTBRIDGE_OPERATOR_TOKEN")
	if err != nil {
		return bridge.Tokens{}, err
	}
	if p != "" && p == o {
		return bridge.Tokens{}, errors.New("planner and operator tokens must differ")
	}
	return bridge.Tokens{Planner: p, Operator: o}, nil
}

// operatorTokenName is the file in the data dir holding the operator token
// the bridge makes when none is configured (actbridge motions reads it).
const operatorTokenName = "operator.token"

// tokensFor refuses a listen address the configured tokens do not cover:
// anything but loopback needs both, so that no request from the network
// acts without a token.
func tokensFor(listen string, t bridge.Tokens) error {
	if loopback(listen) {
		return nil
	}
	var missing []string
	if t.Planner == "" {
		missing = append(missing, "ACTBRIDGE_PLANNER_TOKEN (or --planner-token-file)")
	}
	if t.Operator == "" {
		missing = append(missing, "ACTBRIDGE_OPERATOR_TOKEN (or --operator-token-file)")
	}
	if len(missing) == 0 {
		return nil
	}
	return usageError{fmt.Sprintf("refusing to listen on %s: a non-loopback address needs both the planner and the operator token; set %s, or listen on 127.0.0.1",
		listen, strings.Join(missing, " and "))}
}

// newOperatorToken makes a random operator token and writes it to path
// (0600, replacing the last start's): without a configured token, the
// operator is whoever can read the bridge's data dir, not any local process.
func newOperatorToken(path string) (string, error) {
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	tok := base64.RawURLEncoding.EncodeToString(b)
	_ = os.Remove(path) // a file left with wider permissions is not reused
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", fmt.Errorf("operator token: %w", err)
	}
	_, err = f.WriteString(tok + "\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", fmt.Errorf("operator token: %w", err)
	}
	return tok, nil
}

// previewKey loads (or creates, 0600) the HMAC key that signs preview ids,
// so previews stay verifiable across restarts.
func previewKey(path string) ([]byte, error) {
	if b, err := os.ReadFile(path); err == nil && len(b) >= 32 {
		return b, nil
	}
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return nil, err
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		return nil, fmt.Errorf("preview key: %w", err)
	}
	return b, nil
}

// observers fans one call record out to several observers.
type observers []bridge.Observer

func (o observers) ObserveCall(r bridge.CallRecord) {
	for _, x := range o {
		x.ObserveCall(r)
	}
}

// stores are the motion store file and what the tool layer reads of it. A
// store that cannot open does not stop the bridge: reads keep working and
// every irreversible call is refused with the reason (brokenStore).
type stores struct {
	file    *inflight.Store // nil when it could not open
	motions bridge.MotionStore
	audit   bridge.AuditLog
	estop   bridge.EStopStore
	health  interface{ Healthy() error }
	// Without the file nothing records denials or idempotency keys (nil).
	denials bridge.Denials
	idem    bridge.Idempotency
}

func openStores(path string, mx *metrics.Metrics, stderr io.Writer) stores {
	st, err := inflight.Open(path, inflight.Options{ObserveCommit: mx.ObserveCommit})
	if err != nil {
		fmt.Fprintf(stderr, "actbridge: motion store %s unavailable: %v; irreversible tools will refuse\n", path, err)
		b := brokenStore{err: err}
		return stores{motions: mx.InstrumentStore(b), audit: b, estop: b, health: b}
	}
	return stores{file: st, motions: mx.InstrumentStore(st), audit: st, estop: st, health: st, denials: st, idem: idemStore{st}}
}

// robotDescription reads the URDF the transport finds, naming what
// discovery advises when it fails (and printing it when it does not).
func robotDescription(ctx context.Context, tr *link, wait time.Duration, stderr io.Writer) (string, error) {
	urdf, err := description(ctx, tr.describer, wait)
	advice := ""
	if tr.advice != nil {
		advice = tr.advice()
	}
	if err != nil {
		if advice != "" {
			return "", fmt.Errorf("robot description: %w (discovery: %s)", err, advice)
		}
		return "", fmt.Errorf("robot description: %w", err)
	}
	if advice != "" {
		fmt.Fprintf(stderr, "actbridge: discovery: %s\n", advice)
	}
	return urdf, nil
}

// serveMux routes /mcp, the operator's console and stop, /metrics,
// /healthz and, when asked on a loopback address, pprof.
func serveMux(f serveFlags, mcpHandler http.Handler, p *bridge.Pipeline, st *inflight.Store, tokens bridge.Tokens, mx *metrics.Metrics, healthz func() any) (*http.ServeMux, error) {
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcpHandler)
	var previews console.Previews // stays nil (not a nil *Store) when the store is down
	var records console.Records
	if st != nil {
		previews, records = st, st
	}
	operator := console.New(p, previews, tokens)
	operator.ServeRecords(records) // `actbridge motions` and `audit` ask here while the file is locked
	mux.HandleFunc("POST /stop", operator.ServeStop)
	mux.Handle("/console", operator)
	mux.Handle("/console/", operator)
	mux.Handle("/metrics", mx.Handler())
	if f.pprof {
		if !loopback(f.listen) {
			return nil, usageError{"--pprof is only allowed on a loopback listen address"}
		}
		mux.HandleFunc("/debug/pprof/", pprof.Index)
		mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
		mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
		mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
		mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	}
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(healthz())
	})
	return mux, nil
}
