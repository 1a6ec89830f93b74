package inflight_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/actbridge/actbridge/inflight"
)

// The bridge's confirm path: store the preview the planner is shown; on
// confirm, derive the motion id from the business key, commit it with the
// preview consumed, and publish only when this call created it.
func ExampleStore_ConfirmPreview() {
	dir, _ := os.MkdirTemp("", "inflight-example")
	defer os.RemoveAll(dir)
	s, err := inflight.Open(filepath.Join(dir, "inflight.db"), inflight.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()

	ctx := context.Background()
	args := json.RawMessage(`{"joints":{"elbow":0.5}}`) // canonical, as the bridge writes them
	pv := inflight.Preview{
		ID:         "preview-1",
		Tool:       "arm_move_joints",
		Actuator:   inflight.ActuatorArm,
		ArgsDigest: inflight.Digest(args),
		Args:       args,
		Goal:       json.RawMessage(`{"trajectory":{"joint_names":["elbow"]}}`),
		ExpiresAt:  time.Now().Add(time.Minute),
	}
	if err := s.PutPreview(ctx, pv); err != nil {
		fmt.Println(err)
		return
	}
	m := inflight.Motion{
		ID:         inflight.MotionID(pv.Tool, args, pv.ID),
		Tool:       pv.Tool,
		ArgsDigest: pv.ArgsDigest,
		Role:       "planner",
	}
	for attempt := 1; attempt <= 2; attempt++ { // the planner retries after a timeout
		p, err := s.GetPreview(pv.ID)
		if err != nil {
			fmt.Println(err)
			return
		}
		got, created, err := s.ConfirmPreview(ctx, p, m)
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
