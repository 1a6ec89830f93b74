package action_test

import (
	"context"
	"fmt"
	"time"

	"github.com/actbridge/actbridge/cdr"
	"github.com/actbridge/actbridge/msgs/ros2"
	"github.com/actbridge/actbridge/ros2/action"
	"github.com/actbridge/actbridge/rtps"
)

// A FollowJointTrajectory server that refuses empty trajectories, reports
// progress and ends each goal SUCCEEDED, or CANCELED when asked. (No
// output: it needs a network; server_test.go runs it in a namespace.)
func ExampleNewServer() {
	ctx := context.Background()
	p, _ := rtps.NewParticipant(ctx, rtps.Config{Domain: 0, Multicast: true})
	defer p.Close()
	set, _ := msgs.Load(msgs.Jazzy)
	const fjt = "control_msgs/action/FollowJointTrajectory"
	done := make(chan struct{}) // closed to stop every goal's goroutine
	defer close(done)
	s, err := action.NewServer(p, set, "/arm/follow_joint_trajectory", fjt, action.Handlers{
		Goal: func(id action.GoalID, goal *cdr.Message) action.GoalResponse {
			points, _ := goal.Get("trajectory").(*cdr.Message).Get("points").([]*cdr.Message)
			if len(points) == 0 {
				return action.Reject
			}
			return action.AcceptAndExecute
		},
		Accepted: func(g *action.ServerGoal) {
			go func() {
				fb, _ := set.Message(fjt + "_Feedback")
				g.Feedback(fb)
				select {
				case <-time.After(time.Second):
					g.Succeed(nil)
				case <-g.Canceling():
					g.Canceled(nil)
				case <-done:
				}
			}()
		},
	}, action.ServerOptions{OnDuplicate: func(id action.GoalID) { /* log and count the client's fault */ }})
	if err != nil {
		return
	}
	defer s.Close()
}

// How long a server remembers an ended goal in each distro.
func ExampleResultTimeoutFor() {
	for _, d := range msgs.Distros() {
		fmt.Println(d, action.ResultTimeoutFor(d))
	}
	// Output:
	// humble 15m0s
	// jazzy 10s
	// kilted 10s
	// lyrical 10s
}
