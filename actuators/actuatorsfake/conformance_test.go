package actuatorsfake_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/actuators/actuatorsfake"
	"github.com/actbridge/actbridge/actuators/actuatorstest"
	"github.com/actbridge/actbridge/spline"
)

func TestFakePassesTheContract(t *testing.T) {
	actuatorstest.TestRobot(t, fakeRig)
}

// fakeRig is a fake with an arm that runs goals for a second and an arm
// whose sends wait.
func fakeRig(t *testing.T) actuatorstest.Rig {
	r := actuatorsfake.New(actuatorsfake.Options{
		Actuators: []actuators.ActuatorStatus{{Name: "arm", Kind: actuators.KindArm}, {Name: "left", Kind: actuators.KindArm}},
		Run:       time.Second,
		Hold:      []string{"left"},
	})
	t.Cleanup(func() { _ = r.Close() })
	g := actuators.Trajectory{Joints: []string{"j1"}, Points: []spline.Point{{Positions: []float64{0.1}, Time: 1}}}
	return actuatorstest.Rig{Robot: r, Wire: r.Wire, Arm: "arm", Goal: g, Held: "left", HeldGoal: g, Timeout: 5 * time.Second}
}

// The suite can fail: a robot that received every goal twice is caught.
// The broken run happens in a child process, so its failure is data here.
func TestSuiteCatchesAGoalReceivedTwice(t *testing.T) {
	if os.Getenv("ACTUATORSFAKE_BROKEN") == "1" {
		actuatorstest.TestRobot(t, func(t *testing.T) actuatorstest.Rig {
			rig := fakeRig(t)
			wire := rig.Wire
			rig.Wire = func() []string { return append(wire(), wire()...) } // every goal arrived twice
			return rig
		})
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestSuiteCatchesAGoalReceivedTwice$", "-test.count=1")
	cmd.Env = append(os.Environ(), "ACTUATORSFAKE_BROKEN=1")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("the suite passed a robot that received every goal twice:\n%s", out)
	}
	if !strings.Contains(string(out), "reached the robot 2 times, want once") {
		t.Errorf("the suite failed, but not on the resent goal:\n%s", out)
	}
}
