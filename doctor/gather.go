package doctor

import (
	"context"
	"errors"
	"time"

	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/cdr"
	"github.com/actbridge/actbridge/config"
	"github.com/actbridge/actbridge/msgs/ros2"
	"github.com/actbridge/actbridge/ros2/graph"
	"github.com/actbridge/actbridge/ros2/inspect"
)

// Robot is what the doctor asks of the transport serve would open: its
// verdict on each actuator and the robot description. Both transports'
// Robots are one.
type Robot interface {
	Actuators() []actuators.ActuatorStatus
	Connected() bool
	RobotDescription(ctx context.Context) (string, error)
}

// Sources are where Gather reads.
type Sources struct {
	Where string
	Robot Robot
	// Reachable says whether the graph is reachable (default: the
	// Robot's Connected); Advice says what discovery cannot reach (nil:
	// nothing known).
	Reachable func() bool
	Advice    func() string
	// Topics lists the robot's topics (the transport's actuators.Graph);
	// nil: not listed.
	Topics func(context.Context) ([]actuators.TopicInfo, error)
	// Publishers lists each topic's publishing nodes (a ROS 1 master's
	// system state); nil: not counted.
	Publishers func(context.Context) (map[string][]string, error)
	// Inspector is a second participant on the robot's ROS 2 graph, of
	// the config's distro; nil over ROS 1.
	Inspector *inspect.Inspector
	Distro    msgs.Distro
	// ActionType is the action type the transport drives an actuator
	// with (ros2.ActionType); nil: not checked.
	ActionType func(config.ActuatorConfig) (string, error)
	// MaxClockSkew is Facts.MaxClockSkew.
	MaxClockSkew time.Duration
	// Wait bounds the wait for the configured servers and publishers to
	// show, and each read (default 5 s).
	Wait time.Duration
}

// Gather reads the facts Judge needs: it waits (at most Wait) until the
// graph shows every configured action's server and state publisher, or
// until the transport reports every actuator connected, then reads.
func Gather(ctx context.Context, cfg *config.Config, s Sources) Facts {
	if s.Wait <= 0 {
		s.Wait = 5 * time.Second
	}
	if s.Reachable == nil {
		s.Reachable = s.Robot.Connected
	}
	f := Facts{Where: s.Where, MaxClockSkew: s.MaxClockSkew}
	// One deadline for both waits: what has not shown by then is what the checks report missing.
	wait, cancel := context.WithTimeout(ctx, s.Wait)
	defer cancel()
	if s.Inspector != nil {
		f.ROS2 = &ROS2Facts{Distro: s.Distro, Stamps: map[string]Stamp{}, UseSimTime: map[string]bool{}, ActionTypes: map[string]string{}}
		for _, a := range cfg.Actuators {
			if s.ActionType == nil || a.Action == "" {
				continue
			}
			if t, err := s.ActionType(a); err == nil {
				f.ROS2.ActionTypes[a.Name] = t
			}
		}
		g, err := s.Inspector.Graph(wait, "configured server or publisher", func(g graph.Graph) bool { return complete(cfg, g) })
		if err != nil {
			g = s.Inspector.Context().Graph() // what there is: the checks say what is missing
		}
		f.ROS2.Graph = g
	}
	waitConnected(wait, s.Robot)
	f.Reachable = s.Reachable()
	if s.Advice != nil {
		f.Advice = s.Advice()
	}
	f.Actuators = s.Robot.Actuators()
	if s.Topics != nil {
		f.Topics, f.TopicsErr = s.Topics(ctx)
	} else {
		f.TopicsErr = errors.New("the transport lists no topics")
	}
	if s.Publishers != nil {
		f.Publishers, f.PublishersErr = s.Publishers(ctx)
	}
	dctx, cancel := context.WithTimeout(ctx, s.Wait)
	f.URDF, f.URDFErr = s.Robot.RobotDescription(dctx)
	cancel()
	if f.ROS2 != nil {
		readStamps(ctx, cfg, s.Inspector, f.ROS2)
		readUseSimTime(ctx, cfg, s.Inspector, f.ROS2)
	}
	return f
}

// Run gathers and judges.
func Run(ctx context.Context, cfg *config.Config, s Sources) Report {
	return Judge(cfg, Gather(ctx, cfg, s))
}

// complete says whether g shows a server of every configured action and a
// publisher of every state topic.
func complete(cfg *config.Config, g graph.Graph) bool {
	for _, a := range cfg.Actuators {
		if a.Action != "" {
			if t, ok := g.Topic(actionFeedback(a.Action)); !ok || len(t.Publishers) == 0 {
				return false
			}
		}
	}
	for _, st := range stateTopics(cfg) {
		if t, ok := g.Topic(st.name); !ok || len(t.Publishers) == 0 {
			return false
		}
	}
	return true
}

// waitConnected polls the transport until every actuator is connected or
// ctx ends: its participant discovers the robot on its own.
func waitConnected(ctx context.Context, r Robot) {
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		all := true
		for _, a := range r.Actuators() {
			all = all && a.Connected
		}
		if all {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// readStamps takes one message of each state topic that has a publisher.
func readStamps(ctx context.Context, cfg *config.Config, in *inspect.Inspector, f *ROS2Facts) {
	for _, st := range stateTopics(cfg) {
		if t, ok := f.Graph.Topic(st.name); !ok || len(t.Publishers) == 0 {
			continue
		}
		var s Stamp
		err := in.Echo(ctx, st.name, inspect.EchoOptions{Count: 1}, func(m *cdr.Message) error {
			s.Received = time.Now()
			h, _ := m.Get("header").(*cdr.Message)
			if h == nil {
				return errors.New("the message has no header")
			}
			st, _ := h.Get("stamp").(*cdr.Message)
			if st == nil {
				return errors.New("the header has no stamp")
			}
			sec, _ := st.Get("sec").(int32)
			nsec, _ := st.Get("nanosec").(uint32)
			s.Stamp = time.Unix(int64(sec), int64(nsec))
			return nil
		})
		s.Err = err
		f.Stamps[st.name] = s
	}
}

// readUseSimTime asks each configured action's server node for its
// use_sim_time (rclcpp declares it on every node).
func readUseSimTime(ctx context.Context, cfg *config.Config, in *inspect.Inspector, f *ROS2Facts) {
	seen := map[string]bool{}
	for _, a := range cfg.Actuators {
		if a.Action == "" {
			continue
		}
		t, _ := f.Graph.Topic(actionFeedback(a.Action))
		for _, p := range t.Publishers {
			if p.Node == "" || seen[p.Node] {
				continue
			}
			seen[p.Node] = true
			if v, err := in.Param(ctx, p.Node, "use_sim_time"); err == nil {
				if b, ok := v.V.(bool); ok {
					f.UseSimTime[p.Node] = b
				}
			}
		}
	}
}
