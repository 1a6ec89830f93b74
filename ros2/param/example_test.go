package param_test

import (
	"context"

	"github.com/actbridge/actbridge/msgs/ros2"
	"github.com/actbridge/actbridge/ros2/param"
	"github.com/actbridge/actbridge/rtps"
)

// A node's parameters served as rclcpp serves them: a speed scale in
// [0, 1] that remote nodes may set, and a read-only name. (No output: it
// needs a network; server_test.go runs servers in a namespace.)
func ExampleNewServer() {
	p, _ := rtps.NewParticipant(context.Background(), rtps.Config{Domain: 0, Multicast: true})
	defer p.Close()
	set, _ := msgs.Load(msgs.Jazzy)
	s, err := param.NewServer(p, set, "/arm/controller", []param.Declaration{
		{Name: "speed_scale", Value: param.Value{V: 1.0}, FloatRange: &param.FloatRange{From: 0, To: 1}},
		{Name: "robot_name", Value: param.Value{V: "sim"}, ReadOnly: true},
	}, param.ServerOptions{})
	if err != nil {
		return
	}
	defer s.Close()
	scale, _ := s.Get("speed_scale") // what remote sets have made it
	_ = scale.V.(float64)
}
