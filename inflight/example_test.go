package inflight_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/actbridge/actbridge/inflight"
)

// The bridge's confirm path: derive the motion id from the business key,
// claim it, and publish only when this call created it.
func ExampleStore_Claim() {
	dir, _ := os.MkdirTemp("", "inflight-example")
	defer os.RemoveAll(dir)
	s, err := inflight.Open(filepath.Join(dir, "inflight.db"), inflight.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()

	args, _ := inflight.Canonical(json.RawMessage(`{"joints": {"elbow": 0.5}}`))
	m := inflight.Motion{
		ID:         inflight.MotionID("arm_move_joints", args, "task-42"),
		Tool:       "arm_move_joints",
		Actuator:   inflight.ActuatorArm,
		ArgsDigest: inflight.Digest(args),
		Args:       args,
		Goal:       json.RawMessage(`{"trajectory":{"joint_names":["elbow"]}}`),
		Role:       "planner",
	}
	for attempt := 1; attempt <= 2; attempt++ { // the planner retries after a timeout
		got, created, err := s.Claim(context.Background(), m)
		switch {
		case err != nil:
			fmt.Println("do not publish:", err)
		case created:
			fmt.Println("attempt", attempt, "publishes the goal; state", got.State)
		default:
			fmt.Println("attempt", attempt, "publishes nothing; state", got.State)
		}
	}
	// Output:
	// attempt 1 publishes the goal; state dispatching
	// attempt 2 publishes nothing; state dispatching
}
