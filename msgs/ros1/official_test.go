package msgs_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"reflect"
	"testing"

	"github.com/bluenviron/goroslib/v2/pkg/msgproc"

	"github.com/actbridge/actbridge/msgs/ros1"
	"github.com/actbridge/actbridge/ros1/rostest"
)

// allTypes is every message this package defines, with its ROS type.
var allTypes = []struct {
	msg     any
	rosType string
}{
	{msgs.FollowJointTrajectoryGoal{}, "control_msgs/FollowJointTrajectoryGoal"},
	{msgs.FollowJointTrajectoryResult{}, "control_msgs/FollowJointTrajectoryResult"},
	{msgs.FollowJointTrajectoryFeedback{}, "control_msgs/FollowJointTrajectoryFeedback"},
	{msgs.FollowJointTrajectoryActionGoal{}, "control_msgs/FollowJointTrajectoryActionGoal"},
	{msgs.FollowJointTrajectoryActionResult{}, "control_msgs/FollowJointTrajectoryActionResult"},
	{msgs.FollowJointTrajectoryActionFeedback{}, "control_msgs/FollowJointTrajectoryActionFeedback"},
	{msgs.GripperCommandGoal{}, "control_msgs/GripperCommandGoal"},
	{msgs.GripperCommandResult{}, "control_msgs/GripperCommandResult"},
	{msgs.GripperCommandFeedback{}, "control_msgs/GripperCommandFeedback"},
	{msgs.GripperCommandActionGoal{}, "control_msgs/GripperCommandActionGoal"},
	{msgs.GripperCommandActionResult{}, "control_msgs/GripperCommandActionResult"},
	{msgs.GripperCommandActionFeedback{}, "control_msgs/GripperCommandActionFeedback"},
	{msgs.MoveBaseGoal{}, "move_base_msgs/MoveBaseGoal"},
	{msgs.MoveBaseResult{}, "move_base_msgs/MoveBaseResult"},
	{msgs.MoveBaseFeedback{}, "move_base_msgs/MoveBaseFeedback"},
	{msgs.MoveBaseActionGoal{}, "move_base_msgs/MoveBaseActionGoal"},
	{msgs.MoveBaseActionResult{}, "move_base_msgs/MoveBaseActionResult"},
	{msgs.MoveBaseActionFeedback{}, "move_base_msgs/MoveBaseActionFeedback"},
}

type officialAnswer struct {
	Messages []struct {
		Type             string          `json:"type"`
		Error            string          `json:"error"`
		Source           string          `json:"source"`
		OfficialType     string          `json:"official_type"`
		OfficialMD5      string          `json:"official_md5"`
		OfficialFullText string          `json:"official_full_text"`
		DynamicMD5       string          `json:"dynamic_md5"`
		CanonOfficial    json.RawMessage `json:"canon_official"`
		CanonOurs        json.RawMessage `json:"canon_ours"`
	} `json:"messages"`
	Selfcheck []struct {
		Type          string `json:"type"`
		MD5Equal      bool   `json:"md5_equal"`
		FullTextEqual bool   `json:"full_text_equal"`
	} `json:"selfcheck"`
}

// askOfficial runs testdata/official_msgs.py, which answers with the
// official generators (Debian's genpy modules; genmsg for control_msgs).
func askOfficial(t *testing.T, defs map[string]string) officialAnswer {
	t.Helper()
	if _, err := os.Stat(rostest.MasterBinary); err != nil {
		t.Skipf("ROS not installed (%s missing)", rostest.MasterBinary)
	}
	type reqMsg struct {
		Type       string `json:"type"`
		Definition string `json:"definition"`
	}
	var req struct {
		Messages []reqMsg `json:"messages"`
	}
	for _, tt := range allTypes {
		req.Messages = append(req.Messages, reqMsg{tt.rosType, defs[tt.rosType]})
	}
	in, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(rostest.Python, "testdata/official_msgs.py", "compare", "testdata/control_msgs")
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("official_msgs.py (needs Debian python3-genmsg, python3-genpy, python3-move-base-msgs, "+
			"python3-actionlib-msgs, python3-trajectory-msgs, python3-geometry-msgs): %v\n%s", err, stderr.String())
	}
	var ans officialAnswer
	if err := json.Unmarshal(out, &ans); err != nil {
		t.Fatalf("decode official_msgs.py output: %v\n%s", err, out)
	}
	if len(ans.Messages) != len(allTypes) {
		t.Fatalf("official_msgs.py answered %d types, want %d", len(ans.Messages), len(allTypes))
	}
	return ans
}

func TestMessagesMatchOfficialGenerator(t *testing.T) {
	defs := map[string]string{}
	for _, tt := range allTypes {
		def, err := msgproc.Definition(tt.msg)
		if err != nil {
			t.Fatalf("%s: Definition: %v", tt.rosType, err)
		}
		defs[tt.rosType] = def
	}
	ans := askOfficial(t, defs)

	// The control_msgs reference is only as good as the action expansion:
	// it must reproduce Debian's move_base_msgs byte for byte.
	for _, c := range ans.Selfcheck {
		if !c.MD5Equal || !c.FullTextEqual {
			t.Errorf("action expansion self-check %s: md5 equal %v, full text equal %v", c.Type, c.MD5Equal, c.FullTextEqual)
		}
	}

	for i, tt := range allTypes {
		a := ans.Messages[i]
		t.Run(tt.rosType, func(t *testing.T) {
			if a.Error != "" {
				t.Fatalf("official generator: %s", a.Error)
			}
			gotType, err := msgproc.Type(tt.msg)
			if err != nil {
				t.Fatal(err)
			}
			gotMD5, err := msgproc.MD5(tt.msg)
			if err != nil {
				t.Fatal(err)
			}
			if gotType != tt.rosType || a.OfficialType != tt.rosType {
				t.Errorf("type: goroslib says %s, official %s, want %s", gotType, a.OfficialType, tt.rosType)
			}
			if gotMD5 != a.OfficialMD5 {
				t.Errorf("md5: goroslib %s, official %s (%s)", gotMD5, a.OfficialMD5, a.Source)
			}
			// What rospy and rosbag compute from the definition we send in
			// the TCPROS header.
			if a.DynamicMD5 != a.OfficialMD5 {
				t.Errorf("md5 genpy derives from our definition: %s, official %s", a.DynamicMD5, a.OfficialMD5)
			}
			var ours, official any
			if err := json.Unmarshal(a.CanonOurs, &ours); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(a.CanonOfficial, &official); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(ours, official) {
				o, _ := json.Marshal(ours)
				w, _ := json.Marshal(official)
				t.Errorf("definition differs from the official one (fields and constants per type)\nours:     %s\nofficial: %s\nofficial text:\n%s",
					o, w, a.OfficialFullText)
			}
		})
	}
}
