package ddspeers

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/actbridge/actbridge/msgs/ros2"
)

// TestParameterServicesAnswerAsRclcpp calls each vendor's parameter
// server with the same vendor's client: list, get, set and describe
// answer as rclcpp's parameter service does, the same in both dialects.
func TestParameterServicesAnswerAsRclcpp(t *testing.T) {
	p := BuildNodes(t, msgs.Jazzy)
	params := []string{"speed=double:0.5", "arm.reach=int:3", "arm.name=string:ur5", "safe=bool:true"}
	calls := []string{
		"list", "list:arm", "get:speed,arm.name", "get:speed,nope",
		"set:speed=double:0.75", "set:speed=string:x", "set:safe=bool:false", "set:nope=int:1",
		"get:speed", "describe:safe,speed",
	}
	want := `{"call":"list","names":["speed","arm.reach","arm.name","safe"],"prefixes":["arm"]}
{"call":"list","names":["arm.reach","arm.name"],"prefixes":["arm"]}
{"call":"get","values":[{"type":3,"value":0.5},{"type":4,"value":"ur5"}]}
{"call":"get","values":[]}
{"call":"set","results":[{"successful":true,"reason":""}]}
{"call":"set","results":[{"successful":false,"reason":"Wrong parameter type, parameter {speed} is of type {double}, setting it to {string} is not allowed."}]}
{"call":"set","results":[{"successful":false,"reason":"parameter 'safe' cannot be set because it is read-only"}]}
{"call":"set","results":[{"successful":false,"reason":"parameter 'nope' cannot be set because it was not declared"}]}
{"call":"get","values":[{"type":3,"value":0.75}]}
{"call":"describe","descriptors":[{"name":"safe","type":1,"read_only":true},{"name":"speed","type":3,"read_only":false}]}
{"call":"event","node":"/robot/ctl","new":[],"changed":["speed"]}
`
	wantReplies, err := JSONLines[ParamReply]([]byte(want))
	if err != nil {
		t.Fatal(err)
	}
	eachVendor(t, p, func(t *testing.T, ctx context.Context, v vendor) {
		srv, ns := startReady(ctx, t, func(ns string) *Proc {
			return StartParamServer(t, ns, v.bin, "ctl", params, "--namespace", "/robot", "--read-only", "safe")
		}, "ready")
		cli := StartParamClient(t, ns, v.bin, "ctl", calls, "--namespace", "/robot", "--timeout", "20", "--events", "1")
		if err := cli.Wait(ctx); err != nil {
			t.Fatalf("client: %v: %s\nserver: %s", err, cli.Stderr(), srv.Stderr())
		}
		got := jsonLines[ParamReply](t, cli)
		if g, w := mustJSON(t, got), mustJSON(t, wantReplies); g != w {
			t.Fatalf("replies\n%s\nwant\n%s", g, w)
		}
		events := jsonLines[ParamEvent](t, srv)[1:] // after the node's announcement
		if len(events) != len(calls) || events[4].Name != "speed" || !events[4].Successful || events[6].Successful {
			t.Fatalf("server events %+v", events)
		}
	})
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
