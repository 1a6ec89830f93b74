package action

import (
	"testing"

	"github.com/actbridge/actbridge/cdr"
	"github.com/actbridge/actbridge/msgs/ros2"
)

// fuzzTypes are the GoalStatusArray and FollowJointTrajectory feedback
// types, the two samples an action server sends us unasked.
func fuzzTypes(f *testing.F) (status, feedback *cdr.Struct) {
	set, err := msgs.Load(msgs.Jazzy)
	if err != nil {
		f.Fatal(err)
	}
	if status, err = set.Struct("action_msgs/msg/GoalStatusArray"); err != nil {
		f.Fatal(err)
	}
	if feedback, err = set.Struct("control_msgs/action/FollowJointTrajectory_FeedbackMessage"); err != nil {
		f.Fatal(err)
	}
	return status, feedback
}

func FuzzParseStatus(f *testing.F) {
	status, _ := fuzzTypes(f)
	m := cdr.Zero(status)
	list := cdr.MakeSlice(status.Field(0).Type, 2).([]*cdr.Message)
	list[1].Set("status", int8(4))
	m.Set("status_list", list)
	seed, _ := cdr.Encode(m, cdr.LittleEndian)
	f.Add(seed)
	f.Add([]byte{0, 1, 0, 0, 0xff, 0xff, 0xff, 0x7f})
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := parseStatus(status, b)
		if err == nil && got == nil {
			t.Fatal("no error and no map")
		}
	})
}

func FuzzParseFeedback(f *testing.F) {
	_, feedback := fuzzTypes(f)
	seed, _ := cdr.Encode(cdr.Zero(feedback), cdr.LittleEndian)
	f.Add(seed)
	f.Add(seed[:10])
	f.Fuzz(func(t *testing.T, b []byte) {
		id, fb, err := parseFeedback(feedback, b)
		if err == nil && (fb == nil || fb.Type != feedback.Field(1).Type.Struct) {
			t.Fatalf("goal %x: feedback %v", id, fb)
		}
	})
}

func TestStatusArrayIsReadAsEachGoalsLastCode(t *testing.T) {
	set, _ := msgs.Load(msgs.Humble)
	status, err := set.Struct("action_msgs/msg/GoalStatusArray")
	if err != nil {
		t.Fatal(err)
	}
	m := cdr.Zero(status)
	list := cdr.MakeSlice(status.Field(0).Type, 3).([]*cdr.Message)
	for i, e := range []struct {
		id   GoalID
		code int8
	}{{GoalID{1}, 2}, {GoalID{2}, 6}, {GoalID{1}, 4}} {
		info := list[i].Get("goal_info").(*cdr.Message)
		info.Set("goal_id", uuidMessage(info.Type, e.id))
		list[i].Set("status", e.code)
	}
	m.Set("status_list", list)
	b, err := cdr.Encode(m, cdr.LittleEndian)
	if err != nil {
		t.Fatal(err)
	}
	got, err := parseStatus(status, b)
	if err != nil || len(got) != 2 || got[GoalID{1}] != 4 || got[GoalID{2}] != 6 {
		t.Fatalf("%v %v", got, err)
	}
	if _, err := parseStatus(status, b[:len(b)-3]); err == nil {
		t.Fatal("a truncated array read without error")
	}
}
