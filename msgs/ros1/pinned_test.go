package msgs_test

import (
	"testing"

	"github.com/bluenviron/goroslib/v2/pkg/msgproc"
)

// TestMD5SumsStayPinned guards the wire identity without ROS installed. The
// sums come from TestMessagesMatchOfficialGenerator (Debian's genpy and
// genmsg over control_msgs 1.5.2); the control_msgs ones are also the sums
// published for control_msgs on Noetic.
func TestMD5SumsStayPinned(t *testing.T) {
	want := map[string]string{
		"control_msgs/FollowJointTrajectoryGoal":           "69636787b6ecbde4d61d711979bc7ecb",
		"control_msgs/FollowJointTrajectoryResult":         "493383b18409bfb604b4e26c676401d2",
		"control_msgs/FollowJointTrajectoryFeedback":       "10817c60c2486ef6b33e97dcd87f4474",
		"control_msgs/FollowJointTrajectoryActionGoal":     "cff5c1d533bf2f82dd0138d57f4304bb",
		"control_msgs/FollowJointTrajectoryActionResult":   "c4fb3b000dc9da4fd99699380efcc5d9",
		"control_msgs/FollowJointTrajectoryActionFeedback": "d8920dc4eae9fc107e00999cce4be641",
		"control_msgs/GripperCommandGoal":                  "86fd82f4ddc48a4cb6856cfa69217e43",
		"control_msgs/GripperCommandResult":                "e4cbff56d3562bcf113da5a5adeef91f",
		"control_msgs/GripperCommandFeedback":              "e4cbff56d3562bcf113da5a5adeef91f",
		"control_msgs/GripperCommandActionGoal":            "aa581f648a35ed681db2ec0bf7a82bea",
		"control_msgs/GripperCommandActionResult":          "143702cb2df0f163c5283cedc5efc6b6",
		"control_msgs/GripperCommandActionFeedback":        "653dff30c045f5e6ff3feb3409f4558d",
		"move_base_msgs/MoveBaseGoal":                      "257d089627d7eb7136c24d3593d05a16",
		"move_base_msgs/MoveBaseResult":                    "d41d8cd98f00b204e9800998ecf8427e",
		"move_base_msgs/MoveBaseFeedback":                  "3fb824c456a757373a226f6d08071bf0",
		"move_base_msgs/MoveBaseActionGoal":                "660d6895a1b9a16dce51fbdd9a64a56b",
		"move_base_msgs/MoveBaseActionResult":              "1eb06eeff08fa7ea874431638cb52332",
		"move_base_msgs/MoveBaseActionFeedback":            "7d1870ff6e0decea702b943b5af0b42e",
	}
	if len(want) != len(allTypes) {
		t.Fatalf("%d pinned sums for %d types", len(want), len(allTypes))
	}
	for _, tt := range allTypes {
		got, err := msgproc.MD5(tt.msg)
		if err != nil {
			t.Fatalf("%s: %v", tt.rosType, err)
		}
		if got != want[tt.rosType] {
			t.Errorf("%s md5 = %s, want %s", tt.rosType, got, want[tt.rosType])
		}
	}
}
