package bridge

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/spline"
)

// A preview stores its goal as the actuators.Goal it sends, in the layout
// earlier builds wrote (records in a store outlive a build): a record read
// back sends exactly the goal that was previewed, to the nanosecond.
func TestAStoredGoalIsSentExactlyAsPreviewed(t *testing.T) {
	for _, tc := range []struct {
		goal actuators.Goal
		json string
	}{
		{actuators.Trajectory{Joints: []string{"j1"}, Points: []spline.Point{{Time: 1.5, Positions: []float64{0.25}}}},
			`{"trajectory":{"joints":["j1"],"points":[{"Positions":[0.25],"Velocities":null,"Accelerations":null,"Time":1.5}]},"start":{"j1":0}}`},
		{actuators.GripperCommand{Position: 0.02, MaxEffort: 40},
			`{"gripper":{"position":0.02,"max_effort":40},"start":{"j1":0}}`},
		{actuators.Navigate{Target: actuators.Pose2D{Frame: "map", X: 1, Y: -2, Yaw: 0.5}},
			`{"navigate":{"frame":"map","x":1,"y":-2,"yaw":0.5},"start":{"j1":0}}`},
		// 128.164049585 s in float seconds times 1e9 is a hair under
		// its nanoseconds: reading it back must round, not truncate.
		{actuators.Drive{Linear: 0.2, Angular: -0.1, Duration: 128164049585},
			`{"drive":{"linear":0.2,"angular":-0.1,"duration_s":128.164049585},"start":{"j1":0}}`},
	} {
		b, err := json.Marshal(previewGoal{Goal: tc.goal, Start: map[string]float64{"j1": 0}})
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != tc.json {
			t.Errorf("%T stored as\n%s\nwant\n%s", tc.goal, b, tc.json)
		}
		var back previewGoal
		if err := json.Unmarshal([]byte(tc.json), &back); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(back.Goal, tc.goal) {
			t.Errorf("read back %#v, previewed %#v", back.Goal, tc.goal)
		}
	}
}
