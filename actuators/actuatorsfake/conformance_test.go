package actuatorsfake_test

import (
	"testing"
	"time"

	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/actuators/actuatorsfake"
	"github.com/actbridge/actbridge/actuators/actuatorstest"
	"github.com/actbridge/actbridge/spline"
)

func TestFakePassesTheContract(t *testing.T) {
	actuatorstest.TestRobot(t, func(t *testing.T) actuatorstest.Rig {
		r := actuatorsfake.New(actuatorsfake.Options{
			Actuators: []actuators.ActuatorStatus{{Name: "arm", Kind: actuators.KindArm}, {Name: "left", Kind: actuators.KindArm}},
			Run:       time.Second,
			Hold:      []string{"left"},
		})
		t.Cleanup(func() { _ = r.Close() })
		g := actuators.Trajectory{Joints: []string{"j1"}, Points: []spline.Point{{Positions: []float64{0.1}, Time: 1}}}
		return actuatorstest.Rig{Robot: r, Wire: r.Wire, Arm: "arm", Goal: g, Held: "left", HeldGoal: g, Timeout: 5 * time.Second}
	})
}
