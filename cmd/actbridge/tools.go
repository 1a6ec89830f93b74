package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/allowlist"
	"github.com/actbridge/actbridge/bridge"
	"github.com/actbridge/actbridge/config"
)

// coreTools are listed in lazy discovery mode; everything else is found
// with tools_search and called with tools_invoke.
var coreTools = []string{"tools_search", "tools_invoke", "tools_batch", "robot_describe", "robot_stop",
	"motion_confirm", "motion_status", "motion_cancel"}

// toolSet is the bridge's whole tool layer wired to its dependencies.
type toolSet struct {
	pipeline  *bridge.Pipeline
	motions   *bridge.Motions
	previewer *bridge.Previewer
	estop     *bridge.DurableEStop
	scale     *bridge.SpeedScale
	// The guarded rest of ROS (issue 10): allowlisted tools, events, images.
	ros        *bridge.ROSTools
	events     *bridge.Events
	images     *bridge.Images
	limits     bridge.RateLimits
	conditions []bridge.Condition
	info       *bridge.RobotInfo
	// description holds motions while the robot publishes another URDF.
	description *bridge.DescriptionGuard
	// estopErr is why the e-stop could not be restored (it starts latched).
	estopErr error
}

// buildTools registers every tool against the robot and the store. The
// e-stop is restored from opt.estop first: an error means the latch could
// not be read and the bridge starts latched (bridge.EStopUnknownReason).
func buildTools(m *robotModel, robot actuators.Robot, store bridge.MotionStore, audit bridge.AuditLog, key []byte, opt toolOptions) (*toolSet, error) {
	now := time.Now
	es, esErr := bridge.RestoreEStop(opt.estop, now)
	ts := &toolSet{estop: es, scale: bridge.NewSpeedScale(1), estopErr: esErr, description: m.descriptionGuard(now)}
	signer := bridge.PreviewSigner{Key: key}
	// A transport that reaches the rest of ROS runs service_call previews;
	// the access policy says who confirms those.
	ros, hasROS := robot.(bridge.ROSAccess)
	access := accessPolicy(m.cfg)
	confirmer := m.confirmer
	if hasROS {
		confirmer = access.Confirmer(confirmer)
	}
	ts.events, ts.images = bridge.NewEvents(1000, now), bridge.NewImages()
	changed := ts.events.MotionChanged
	if opt.motionChanged != nil {
		changed = bridge.ChainMotionHooks(opt.motionChanged, ts.events.MotionChanged)
	}
	ts.motions = &bridge.Motions{Robot: robot, Store: store, Signer: signer, Now: now, Confirmer: confirmer,
		ConsoleURL: opt.consoleURL, EStop: es.State, Description: ts.description, ROS: ros,
		StaleAfter: opt.staleAfter, StartTolerance: 0.02, PoseTolerance: 0.05, Bases: m.bases, Arms: m.arms,
		Changed: changed, Approvals: opt.approvals, Lifetime: opt.lifetime}
	ts.previewer = &bridge.Previewer{Robot: robot, Store: store, Signer: signer, Motions: ts.motions,
		Arms: m.arms, Grippers: m.grippers, Bases: m.bases, TTL: opt.ttl, StaleAfter: opt.staleAfter,
		SpeedScale: ts.scale.Get, Now: now, LongDuration: 30, StepCaps: stepCaps(m.cfg)}
	pv := ts.previewer
	if hasROS {
		ts.ros = &bridge.ROSTools{ROS: ros, Policy: access, DataDir: opt.dataDir, Previewer: pv, Images: ts.images}
	}
	ts.limits = rateLimits(m.cfg)
	ts.info = &bridge.RobotInfo{Robot: robot, Previewer: pv, Limits: m.limits, Policy: m.policy(),
		Ignored: m.ignored, EStop: es.Since, SpeedScale: ts.scale.Get, RateLimits: ts.limits,
		StepCaps: pv.StepCaps, RecoverySpeedFraction: m.cfg.RecoverySpeedFraction, Access: ts.ros, Description: ts.description}
	tools := pv.Tools()
	if len(m.arms)+len(m.grippers) > 0 { // a base alone reports no joint states
		tools = append(tools, bridge.JointsReadTool(robot, opt.staleAfter, now, m.arms...))
	}
	if g, ok := robot.(bridge.ConnectedGraph); ok { // a transport implements what it can
		topics := allowlist.Globs(m.cfg.Access.Topics)
		tools = append(tools, bridge.TopicsListTool(g, topics), bridge.TopicSampleTool(g, opt.dataDir, topics))
	}
	tools = append(tools, bridge.OutputReadTool(opt.dataDir))
	tools = append(tools, bridge.MotionTools(ts.motions, es, ts.info.Describe, ts.scale)...)
	tools = append(tools, bridge.DescriptionAcceptTool(ts.description))
	tools = append(tools, bridge.EventsReadTool(ts.events))
	if hasROS {
		tools = append(tools, ts.ros.Tools()...)
	}
	ts.conditions = conditions(m.cfg)
	tools = append(tools, bridge.AuditListTool(audit))
	tools = append(tools, bridge.DiscoveryTools()...)
	reg := bridge.NewRegistry()
	for _, t := range tools {
		if err := reg.Add(t); err != nil {
			return nil, err
		}
	}
	reg.SetCore(coreTools...)
	if err := limitedToolsExist(ts.limits, reg); err != nil {
		return nil, err
	}
	ts.pipeline = bridge.NewPipeline(reg, bridge.PipelineDeps{Idem: opt.idem, Observer: opt.observer, Limiter: bridge.NewRateLimiter(ts.limits, now)})
	return ts, nil
}

// toolsExport prints the catalogue in a vendor format, offline: the joints
// and limits come from the URDF file and the config's joint_limits.yaml.
func toolsExport(args []string, out io.Writer) error {
	fs := newFlags("tools export", out)
	format := fs.String("format", "mcp", "catalogue format: mcp, openai or anthropic")
	cfgPath := fs.String("config", demoConfig, "robot config")
	urdfPath := fs.String("urdf", "launch/simrobot.urdf", "URDF file describing the robot (offline stand-in for /robot_description)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := defaultConfigHere(fs, *cfgPath); err != nil {
		return err
	}
	ts, err := offlineTools(*cfgPath, *urdfPath)
	if err != nil {
		return err
	}
	b, err := bridge.Export(ts.pipeline.Registry, *format)
	if err != nil {
		return usageError{err.Error()}
	}
	_, err = fmt.Fprintln(out, string(b))
	return err
}

func offlineTools(cfgPath, urdfPath string) (*toolSet, error) {
	cfg, err := config.Load(cfgPath)
	if err != nil {
		return nil, err
	}
	urdf, err := os.ReadFile(urdfPath)
	if err != nil {
		return nil, fmt.Errorf("urdf: %w", err)
	}
	m, err := loadModel(cfg, urdf)
	if err != nil {
		return nil, err
	}
	robot, err := offlineFor(cfg)
	if err != nil {
		return nil, err
	}
	return buildTools(m, robot, nil, brokenStore{err: errOffline}, []byte("offline"), toolOptions{dataDir: os.TempDir(), ttl: time.Minute, staleAfter: time.Second})
}

// checkConfig loads a robot config and its limits and reports what it found.
func checkConfig(args []string, out io.Writer) error {
	fs := newFlags("check-config", out)
	cfgPath := fs.String("config", demoConfig, "robot config")
	urdfPath := fs.String("urdf", "launch/simrobot.urdf", "URDF file of the robot")
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := defaultConfigHere(fs, *cfgPath); err != nil {
		return err
	}
	ts, err := offlineTools(*cfgPath, *urdfPath)
	if b, err := os.ReadFile(*urdfPath); err == nil {
		fmt.Fprintf(out, "urdf_sha256: %s (%s)\n", bridge.URDFDigest(string(b)), *urdfPath)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "config %s: ok\n", *cfgPath)
	fmt.Fprintf(out, "tools: %d\n", len(ts.pipeline.Registry.Tools()))
	cfg, _ := config.Load(*cfgPath)
	for _, a := range cfg.Actuators {
		fmt.Fprintf(out, "  %s\n", a)
	}
	return nil
}
