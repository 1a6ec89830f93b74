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

// TestInterfaceHashesMatchRosidl checks the hashes of whole services and
// actions, which rmw announces for service endpoints, against rosidl's
// for example_interfaces/action/Fibonacci (Kilted, hpmicro/hpm_sdk main
// 375f7cb, middleware/microros/kilted/include/example_interfaces/
// example_interfaces/action/detail/fibonacci__description.c).
func TestInterfaceHashesMatchRosidl(t *testing.T) {
	r := testRegistry(t)
	src := []byte("int32 order\n---\nint32[] sequence\n---\nint32[] sequence\n")
	g, res, fb, err := ParseAction("Fibonacci.action", "example_interfaces", "Fibonacci", src)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Add(append([]*Definition{g, res, fb}, ActionTypes("example_interfaces", "Fibonacci")...)...); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{
		"Fibonacci":                    "9508051da1ea4658de144b09bd0690ff3de52104683d847aed764d2915906f51",
		"Fibonacci_Goal":               "226cb437e4355dcd3e914f930382a3b0cc1da81545bd319ed554e95a03255f51",
		"Fibonacci_Result":             "fea81394f25aa4502217953f1a021fb750e79c10bbd43f13dd94632da6569649",
		"Fibonacci_Feedback":           "2b12e37361da6f408d4c85bc24a18de64333f29082f2ca34b5ee33dc4c8b42a9",
		"Fibonacci_SendGoal":           "d1a57fb2a4afe8c21e34fb10db206f16ce6729b28531141472df92277c55b557",
		"Fibonacci_SendGoal_Request":   "3d088942b413247db536576f0286768c6be8fcd5d0c9a5d544f359fba090a238",
		"Fibonacci_SendGoal_Response":  "d8c07bb3d5b766fe4b43159c9a5222af5214e2fcc29229b991d826166c512be1",
		"Fibonacci_GetResult":          "1b0de0d5d29dc955d92f546706568428632771db13ec84c15ec1c1a59f424a57",
		"Fibonacci_GetResult_Request":  "c8a4f5e7d13b81286ee1043e2ecd084281cecf1ff06aaa799464f5f15479f003",
		"Fibonacci_GetResult_Response": "6021dc98ab9b4bbe395e48aa4de81ee5f68eb570f88358affcc648146668b24f",
		"Fibonacci_FeedbackMessage":    "c1de71afd52e49a89c53d8262366884185bc0a02f78ce051c4e46b0a7fe59bb2",
	} {
		got, err := r.TypeHash("example_interfaces/action/" + name)
		if err != nil {
			t.Errorf("%s: %v", name, err)
		} else if got != "RIHS01_"+want {
			t.Errorf("%s: %s, want RIHS01_%s", name, got, want)
		}
	}
	if _, err := r.TypeHash("example_interfaces/action/Nothing"); !errors.Is(err, ErrUnknownType) {
		t.Errorf("unknown action: %v", err)
	}
	if r.Definition("example_interfaces/action/Fibonacci_SendGoal") != nil {
		t.Error("hashing a service added its description to the registry")
	}
}
