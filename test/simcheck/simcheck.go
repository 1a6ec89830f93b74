// Package simcheck holds what tests of the simulated robot hold it to
// with the bridge's own code (its frame tree, its kinematics), which the
// sim shares nothing with, so the two check each other. Tests only.
package simcheck

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/actbridge/actbridge/kinematics"
	"github.com/actbridge/actbridge/sim"
	"github.com/actbridge/actbridge/tf"
)

// Tool is the sim arm's tool link.
const Tool = "gripper_base_link"

// Arm is the sim arm's chain from base_footprint to Tool, by the bridge's
// kinematics from launch/simrobot.urdf.
func Arm(t testing.TB) *kinematics.Chain {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	data, err := os.ReadFile(filepath.Join(filepath.Dir(file), "..", "..", "launch", "simrobot.urdf"))
	if err != nil {
		t.Fatal(err)
	}
	model, err := kinematics.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	arm, err := model.Chain(sim.BaseFrame, Tool)
	if err != nil {
		t.Fatal(err)
	}
	return arm
}

// ToolPose is Tool's pose in base_footprint for the arm's joints q.
func ToolPose(t testing.TB, q []float64) kinematics.Pose {
	t.Helper()
	arm := Arm(t)
	d := arm.NewData()
	if err := arm.FK(d, q); err != nil {
		t.Fatal(err)
	}
	return d.ToolPose()
}

// FrameTree waits until buf has odometry drifted at least 0.3 m from
// truth (the base's true pose in map, standing still), then holds
// map→base_footprint to truth and base_footprint→Tool to the bridge's
// kinematics for the arm's joints q.
func FrameTree(ctx context.Context, t testing.TB, buf *tf.Buffer, truth sim.Pose2D, q []float64) {
	t.Helper()
	for {
		odom, _, err := buf.Lookup(sim.OdomFrame, sim.BaseFrame, time.Time{})
		if err == nil && math.Hypot(odom.Translation[0]-truth.X, odom.Translation[1]-truth.Y) > 0.3 {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("odometry never drifted in the frame tree: %v %v", odom, err)
		case <-time.After(20 * time.Millisecond):
		}
	}
	got, _, err := buf.Lookup(sim.MapFrame, sim.BaseFrame, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	yaw := 2 * math.Atan2(got.Rotation[2], got.Rotation[3])
	if math.Hypot(got.Translation[0]-truth.X, got.Translation[1]-truth.Y) > 1e-6 || math.Abs(math.Remainder(yaw-truth.Yaw, 2*math.Pi)) > 1e-6 {
		t.Errorf("map→base_footprint %v, true pose %+v", got, truth)
	}
	want := ToolPose(t, q)
	tool, _, err := buf.Lookup(sim.BaseFrame, Tool, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if d := PoseError(tool.Translation, tool.Rotation, want); d > 1e-6 {
		t.Errorf("base_footprint→%s %v, kinematics %v", Tool, tool, want)
	}
}

// PoseError is the larger of the position error (m) and the rotation
// angle (rad) between a pose and want.
func PoseError(pos [3]float64, rot [4]float64, want kinematics.Pose) float64 {
	dp := math.Hypot(math.Hypot(pos[0]-want.Position[0], pos[1]-want.Position[1]), pos[2]-want.Position[2])
	dot := 0.0
	for i := range 4 {
		dot += rot[i] * want.Orientation[i]
	}
	angle := 2 * math.Acos(math.Min(1, math.Abs(dot)))
	return math.Max(dp, angle)
}
