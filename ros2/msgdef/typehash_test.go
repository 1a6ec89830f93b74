package msgdef

import (
	"errors"
	"testing"
)

// TestTypeHashMatchesRosidl checks RIHS01 hashes against the ones rosidl
// generated for these types (rosidl_generator_c *__description.c files of
// Jazzy builds, the same in Kilted).
func TestTypeHashMatchesRosidl(t *testing.T) {
	r := testRegistry(t)
	golden := map[string]string{
		"builtin_interfaces/msg/Duration":          "e8d009f659816f758b75334ee1a9ca5b5c0b859843261f14c7f937349599d93b",
		"builtin_interfaces/msg/Time":              "b106235e25a4c5ed35098aa0a61a3ee9c9b18d197f398b0e4206cea9acf9c197",
		"geometry_msgs/msg/Twist":                  "9c45bf16fe0983d80e3cfe750d6835843d265a9a6c46bd2e609fcddde6fb8d2a",
		"geometry_msgs/msg/Vector3":                "cc12fe83e4c02719f1ce8070bfd14aecd40f75a96696a67a2a1f37f7dbb0765d",
		"sensor_msgs/msg/JointState":               "a13ee3a330e346c9d87b5aa18d24e11690752bd33a0350f11c5882bc9179260e",
		"std_msgs/msg/Header":                      "f49fb3ae2cf070f793645ff749683ac6b06203e41c891e17701b1cb597ce6a01",
		"trajectory_msgs/msg/JointTrajectory":      "179b33eba59d676f6d967ac71fe35e7ca2f64b2f3928f4a018cec115e213796e",
		"trajectory_msgs/msg/JointTrajectoryPoint": "de8907036d8bd45aac6f30cc9044a3d4a329c42cbf719aff7d95a584cfa532d7",
		"unique_identifier_msgs/msg/UUID":          "1b8e8aca958cbea28fe6ef60bf6c19b683c97a9ef60bb34752067d0f2f7ab437",
		"action_msgs/msg/GoalInfo":                 "6398fe763154554353930716b225947f93b672f0fb2e49fdd01bb7a7e37933e9",
		"action_msgs/msg/GoalStatus":               "32f4cfd717735d17657e1178f24431c1ce996c878c515230f6c5b3476819dbb9",
	}
	for name, want := range golden {
		t.Run(name, func(t *testing.T) {
			got, err := r.TypeHash(name)
			if err != nil {
				t.Fatal(err)
			}
			if got != "RIHS01_"+want {
				t.Fatalf("got %s, want RIHS01_%s", got, want)
			}
		})
	}
}

func TestTypeHashIgnoresCommentsConstantsAndDefaults(t *testing.T) {
	a, _ := ParseMsg("A.msg", "p", "A", []byte("int32 x\nstring s\n"))
	b, _ := ParseMsg("A.msg", "p", "A", []byte("# other text\nint32 X_MAX=3\nint32 x 7\nstring s 'hi'\n"))
	c, _ := ParseMsg("A.msg", "p", "A", []byte("int32 y\nstring s\n"))
	hash := func(d *Definition) string {
		r := NewRegistry()
		_ = r.Add(d)
		h, err := r.TypeHash("p/A")
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	if hash(a) != hash(b) {
		t.Fatal("comments, constants or defaults changed the hash")
	}
	if hash(a) == hash(c) {
		t.Fatal("renaming a field left the hash unchanged")
	}
	if _, err := NewRegistry().TypeHash("p/Missing"); !errors.Is(err, ErrUnknownType) {
		t.Fatalf("unknown type: %v", err)
	}
}

// TestActionTypesFollowRosidl checks the derived action types' fields and
// DDS-relevant names, which rosidl fixes in rosidl_parser's Action.
func TestActionTypesFollowRosidl(t *testing.T) {
	r := testRegistry(t)
	g, res, fb, err := ParseAction("Fibonacci.action", "demo", "Fibonacci", []byte("int32 order\n---\nint32[] sequence\n---\nint32[] partial_sequence\n"))
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Add(append([]*Definition{g, res, fb}, ActionTypes("demo", "Fibonacci")...)...); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"demo/action/Fibonacci_SendGoal_Request":   `{"goal_id":{"uuid":[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]},"goal":{"order":0}}`,
		"demo/action/Fibonacci_SendGoal_Response":  `{"accepted":false,"stamp":{"sec":0,"nanosec":0}}`,
		"demo/action/Fibonacci_GetResult_Request":  `{"goal_id":{"uuid":[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]}}`,
		"demo/action/Fibonacci_GetResult_Response": `{"status":0,"result":{"sequence":[]}}`,
		"demo/action/Fibonacci_FeedbackMessage":    `{"goal_id":{"uuid":[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]},"feedback":{"partial_sequence":[]}}`,
	}
	for name, js := range want {
		m, err := r.Message(name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := string(m.AppendJSON(nil)); got != js {
			t.Errorf("%s = %s, want %s", name, got, js)
		}
	}
}
