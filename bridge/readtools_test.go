package bridge

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/actuators/actuatorsfake"
)

// fixedJoints is the fake robot with one joint_states snapshot.
type fixedJoints struct {
	*actuatorsfake.Robot
	snap actuators.JointsSnapshot
}

func (f fixedJoints) Joints() actuators.JointsSnapshot { return f.snap }

// The result's bytes are a contract read by planners: field names, their
// order (as a map would marshal them) and values.
func TestJointsReadResultBytes(t *testing.T) {
	at := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	robot := fixedJoints{newFakeRobot(), actuators.JointsSnapshot{Received: at, Joints: []actuators.JointReading{
		{Name: "j1", Position: 0.5, Velocity: -0.25, Effort: 3},
		{Name: "j2", Position: 1e-7},
	}}}
	cases := []struct {
		name, args string
		age        time.Duration
		want       string
	}{
		{"all joints, fresh", `{}`, 250 * time.Millisecond,
			`{"age_s":0.25,"joints":[{"name":"j1","position":0.5,"velocity":-0.25,"effort":3},{"name":"j2","position":1e-7,"velocity":0,"effort":0}],"stale":false,"truncated":false}`},
		{"one joint, stale", `{"joints":["j2"]}`, 1500 * time.Millisecond,
			`{"age_s":1.5,"joints":[{"name":"j2","position":1e-7,"velocity":0,"effort":0}],"stale":true,"truncated":false}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			reg := NewRegistry()
			reg.MustAdd(JointsReadTool(robot, time.Second, func() time.Time { return at.Add(tc.age) }))
			out, e := NewPipeline(reg, PipelineDeps{}).Call(context.Background(), "joints_read", json.RawMessage(tc.args), Invocation{Role: RolePlanner, Session: "s"})
			if e != nil {
				t.Fatal(e)
			}
			b, err := json.Marshal(out)
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tc.want {
				t.Errorf("result\n got %s\nwant %s", b, tc.want)
			}
		})
	}
}
