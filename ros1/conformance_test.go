package ros1

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/actuators/actuatorstest"
	"github.com/actbridge/actbridge/config"
	"github.com/actbridge/actbridge/ros1/rostest"
	"github.com/actbridge/actbridge/spline"
)

// The ROS 1 transport keeps the robot contract against a real rosmaster
// and the sim; what reached the robot is the sim's goal log.
func TestROS1TransportPassesTheContract(t *testing.T) {
	actuatorstest.TestRobot(t, func(t *testing.T) actuatorstest.Rig {
		g := &rig{t: t, m: rostest.StartMaster(t)}
		cfg, err := config.Load("../launch/robots/sim.yaml")
		if err != nil {
			t.Fatal(err)
		}
		// An arm whose controller never comes: its sends wait.
		cfg.Actuators = append(cfg.Actuators, config.ActuatorConfig{Name: "ghost", Kind: actuators.KindArm,
			Action: "/ghost_controller/follow_joint_trajectory", Joints: []string{"ghost_joint"},
			GoalConnectTimeout: config.Duration(15 * time.Second)})
		g.cfg = cfg
		g.startSim()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		r, err := Open(ctx, cfg, Options{Env: g.env(), CheckInterval: 500 * time.Millisecond, Logf: quiet(t)})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = r.Close() })
		rostest.Eventually(t, 30*time.Second, "the arm connected", func() error {
			for _, a := range r.Actuators() {
				if a.Name == "arm" && !a.Connected {
					return fmt.Errorf("%s: %s", a.Name, a.Detail)
				}
			}
			return nil
		})
		joints, points := move(0.3, 1.5)
		wire := func() []string {
			var ids []string
			for _, l := range g.sim.Goals() {
				for _, rec := range l.Goals {
					ids = append(ids, rec.ID)
				}
			}
			return ids
		}
		return actuatorstest.Rig{Robot: r, Wire: wire, Arm: "arm", Goal: actuators.Trajectory{Joints: joints, Points: points},
			Held: "ghost", HeldGoal: actuators.Trajectory{Joints: []string{"ghost_joint"}, Points: []spline.Point{{Positions: []float64{0.1}, Time: 1}}},
			Timeout: 30 * time.Second}
	})
}
