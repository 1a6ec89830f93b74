package msgdef_test

import (
	"errors"
	"fmt"
	"strings"

	"github.com/actbridge/actbridge/cdr"
	"github.com/actbridge/actbridge/ros2/msgdef"
)

// A .msg text parses into fields, defaults and constants.
func ExampleParseMsg() {
	d, err := msgdef.ParseMsg("Gain.msg", "demo", "Gain", []byte(`
uint8 MAX=10         # a constant, not on the wire
float64 kp 1.5       # a field with a default
string<=8[<=2] tags  # bounded sequence of bounded strings
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(d.FullName(), d.Constants[0].Name, d.Constants[0].Value)
	for _, f := range d.Fields {
		fmt.Println(f.Name, f.Type, f.Default)
	}
	// Output:
	// demo/msg/Gain MAX 10
	// kp float64 1.5
	// tags string<=8[<=2] <nil>
}

// A .srv splits into _Request and _Response at the "---" line.
func ExampleParseSrv() {
	req, resp, _ := msgdef.ParseSrv("AddTwoInts.srv", "demo", "AddTwoInts", []byte("int64 a\nint64 b\n---\nint64 sum\n"))
	fmt.Println(req.FullName(), len(req.Fields), resp.FullName(), resp.Fields[0].Name)
	// Output: demo/srv/AddTwoInts_Request 2 demo/srv/AddTwoInts_Response sum
}

// An .action splits into _Goal, _Result and _Feedback.
func ExampleParseAction() {
	g, r, f, _ := msgdef.ParseAction("Fibonacci.action", "demo", "Fibonacci", []byte("int32 order\n---\nint32[] sequence\n---\nint32[] sequence\n"))
	fmt.Println(g.Name, r.Name, f.Name)
	// Output: Fibonacci_Goal Fibonacci_Result Fibonacci_Feedback
}

// A registry resolves nested types, by package or in the same package,
// into a cdr type that encodes messages.
func ExampleRegistry() {
	r := msgdef.NewRegistry()
	vec, _ := msgdef.ParseMsg("Vector3.msg", "geometry_msgs", "Vector3", []byte("float64 x\nfloat64 y\nfloat64 z\n"))
	twist, _ := msgdef.ParseMsg("Twist.msg", "geometry_msgs", "Twist", []byte("Vector3 linear\ngeometry_msgs/Vector3 angular\n"))
	if err := r.Add(vec, twist); err != nil {
		fmt.Println(err)
		return
	}
	m, _ := r.Message("geometry_msgs/Twist")
	_ = m.Get("linear").(*cdr.Message).Set("x", 0.5)
	b, _ := cdr.Encode(m, cdr.LittleEndian)
	fmt.Println(m.Type.Name(), len(b))
	fmt.Printf("%s\n", m.AppendJSON(nil))
	// Output:
	// geometry_msgs/msg/Twist 52
	// {"linear":{"x":0.5,"y":0,"z":0},"angular":{"x":0,"y":0,"z":0}}
}

// Errors name the file and line.
func ExampleParseMsg_error() {
	_, err := msgdef.ParseMsg("Bad.msg", "demo", "Bad", []byte("int32 ok\nint8 small 300\n"))
	fmt.Println(err)
	// Output: Bad.msg:2: msgdef: syntax error: field small default: "300" is not an int8
}

// TypeHash gives the RIHS01 hash rmw puts in endpoint user data.
func ExampleRegistry_TypeHash() {
	r := msgdef.NewRegistry()
	t, _ := msgdef.ParseMsg("Time.msg", "builtin_interfaces", "Time", []byte("int32 sec\nuint32 nanosec\n"))
	_ = r.Add(t)
	h, err := r.TypeHash("builtin_interfaces/msg/Time")
	fmt.Println(h, err)
	// Output: RIHS01_b106235e25a4c5ed35098aa0a61a3ee9c9b18d197f398b0e4206cea9acf9c197 <nil>
}

// ActionTypes gives the five types an action puts on the wire.
func ExampleActionTypes() {
	for _, d := range msgdef.ActionTypes("demo", "Fibonacci") {
		fmt.Print(d.FullName(), ":")
		for _, f := range d.Fields {
			fmt.Print(" ", f.Type, " ", f.Name)
		}
		fmt.Println()
	}
	// Output:
	// demo/action/Fibonacci_SendGoal_Request: unique_identifier_msgs/UUID goal_id demo/action/Fibonacci_Goal goal
	// demo/action/Fibonacci_SendGoal_Response: bool accepted builtin_interfaces/Time stamp
	// demo/action/Fibonacci_GetResult_Request: unique_identifier_msgs/UUID goal_id
	// demo/action/Fibonacci_GetResult_Response: int8 status demo/action/Fibonacci_Result result
	// demo/action/Fibonacci_FeedbackMessage: unique_identifier_msgs/UUID goal_id demo/action/Fibonacci_Feedback feedback
}

// A node's ~/get_type_description answers a type the bridge has no
// definition of; FromDescription builds it and proves it against the
// hash the node announced, so that requests encode as the node reads them.
func ExampleFromDescription() {
	// The node's side: its own definitions, described as rosidl does.
	node := msgdef.NewRegistry()
	req, resp, _ := msgdef.ParseSrv("SetLed.srv", "demo", "SetLed", []byte("demo/Color color\n---\nbool ok\n"))
	color, _ := msgdef.ParseMsg("Color.msg", "demo", "Color", []byte("float32 r\nfloat32 g\nfloat32 b\n"))
	// A service's description has its event message, which nests a Time.
	stamp, _ := msgdef.ParseMsg("Time.msg", "builtin_interfaces", "Time", []byte("int32 sec\nuint32 nanosec\n"))
	_ = node.Add(req, resp, color, stamp)
	desc, err := node.Describe("demo/srv/SetLed")
	if err != nil {
		fmt.Println(err)
		return
	}
	announced, _ := node.TypeHash("demo/srv/SetLed") // in the endpoints' user data

	// The bridge's side: only the description and the announced hash.
	learned, err := msgdef.FromDescription(desc, "demo/srv/SetLed", announced)
	if err != nil {
		fmt.Println(err)
		return
	}
	s, _ := learned.Struct("demo/srv/SetLed_Request")
	fmt.Println(s.Name(), s.Field(0).Name, s.Field(0).Type.Struct.Name(), s.Field(0).Type.Struct.NumField())

	_, err = msgdef.FromDescription(desc, "demo/srv/SetLed", "RIHS01_"+strings.Repeat("0", 64))
	fmt.Println(errors.Is(err, msgdef.ErrHashMismatch))
	// Output:
	// demo/srv/SetLed_Request color demo/msg/Color 3
	// true
}
