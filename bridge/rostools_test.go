package bridge

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"image/jpeg"
	"image/png"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/allowlist"
)

func mustOK(t *testing.T, r *rosRig, role Role, tool, args string) map[string]any {
	t.Helper()
	out, err := r.call(t, role, tool, args)
	if err != nil {
		t.Fatalf("%s %s: %v", tool, args, err)
	}
	return out
}

func mustRefuse(t *testing.T, r *rosRig, tool, args string, code Code, rule string) *Error {
	t.Helper()
	_, err := r.call(t, RolePlanner, tool, args)
	if err == nil {
		t.Fatalf("%s %s: succeeded, want %s", tool, args, code)
	}
	if err.Code != code || (rule != "" && err.Rule != rule) {
		t.Fatalf("%s %s: got %s rule %q (%s), want %s rule %q", tool, args, err.Code, err.Rule, err.Message, code, rule)
	}
	return err
}

func TestEveryROSToolPassesTheContractRules(t *testing.T) {
	r := newROSRig(t)
	for _, tl := range append(r.tools.Tools(), EventsReadTool(r.events)) {
		if err := CheckContract(tl); err != nil {
			t.Fatal(err)
		}
	}
}

func TestParamRefusalsReadAndWriteNothing(t *testing.T) {
	r := newROSRig(t)
	cases := []struct {
		tool, args string
		code       Code
		rule       string
	}{
		{"params_get", `{"name":"/sim/secret/token"}`, CodePermissionDenied, "param_read_allowed"},
		{"params_get", `{"name":"/sim/led/brightness","prefix":"/sim"}`, CodeInvalidArgument, "name_or_prefix"},
		{"params_set", `{"name":"/sim/config/serial","text":"X"}`, CodePermissionDenied, "param_set_allowed"},
		{"params_set", `{"name":"/sim/led/brightness","text":"bright"}`, CodeInvalidArgument, "param_type"},
		{"params_set", `{"name":"/sim/led/brightness"}`, CodeInvalidArgument, "param_type"},
		{"params_set", `{"name":"/sim/led/brightness","number":0.5,"boolean":true}`, CodeInvalidArgument, "param_type"},
		{"params_set", `{"name":"/sim/led/brightness","number":1.5}`, CodeInvalidArgument, "param_in_range"},
		{"params_set", `{"name":"/sim/camera/label","text":"far too long"}`, CodeInvalidArgument, "param_in_range"},
		{"params_set", `{"name":"/sim/led/enabled","number":1}`, CodeInvalidArgument, "param_type"},
	}
	for _, c := range cases {
		e := mustRefuse(t, r, c.tool, c.args, c.code, c.rule)
		if c.code == CodePermissionDenied && (e.Retryable || !strings.Contains(e.Message, "allowlist") || e.Expected == "") {
			t.Fatalf("%s: refusal does not name the rule and the allowlist: %+v", c.args, e)
		}
	}
	if reads, sets, _, _, _ := r.ros.counts(); reads != 0 || sets != 0 {
		t.Fatalf("refused calls reached the parameter server: %d reads, %d sets", reads, sets)
	}
}

func TestParamsGetListsOnlyAllowlistedParametersPaginated(t *testing.T) {
	r := newROSRig(t)
	var names []string
	cursor := ""
	for range 10 {
		args := `{"prefix":"/sim","limit":2}`
		if cursor != "" {
			args = `{"prefix":"/sim","limit":2,"cursor":"` + cursor + `"}`
		}
		p := mustOK(t, r, RolePlanner, "params_get", args)
		for _, it := range p["items"].([]any) {
			names = append(names, it.(map[string]any)["name"].(string))
		}
		cursor, _ = p["next_cursor"].(string)
		if cursor == "" {
			break
		}
	}
	// the secret is not listed; the camera label is settable, hence readable
	want := "/sim/big/blob /sim/camera/label /sim/config/serial /sim/config/wheels /sim/led/brightness /sim/led/enabled"
	if got := strings.Join(names, " "); got != want {
		t.Fatalf("listed %q, want %q", got, want)
	}
	one := mustOK(t, r, RolePlanner, "params_get", `{"name":"/sim/camera/label"}`)
	if one["items"].([]any)[0].(map[string]any)["value"] != "cam" {
		t.Fatalf("%v", one)
	}
	// a large value goes to a file
	big := mustOK(t, r, RolePlanner, "params_get", `{"name":"/sim/big/blob"}`)["items"].([]any)[0].(map[string]any)
	if big["truncated"] != true || big["path"] == nil || big["value"] != nil {
		t.Fatalf("large value inline: %v", big)
	}
}

func TestParamsGetOfANamespaceHidesWhatIsNotAllowlisted(t *testing.T) {
	r := newROSRig(t)
	r.tools.Policy.ParamRead = allowlist.Globs{"/sim/led/*", "/sim/config/serial"}
	// /sim/config is not itself readable...
	mustRefuse(t, r, "params_get", `{"name":"/sim/config"}`, CodePermissionDenied, "param_read_allowed")
	// ...and a readable namespace keeps only readable leaves
	r.tools.Policy.ParamRead = allowlist.Globs{"/sim/*", "/sim/config/serial"}
	v := mustOK(t, r, RolePlanner, "params_get", `{"name":"/sim/config"}`)["items"].([]any)[0].(map[string]any)["value"].(map[string]any)
	if len(v) != 1 || v["serial"] != "S1" {
		t.Fatalf("namespace leaked leaves: %v", v)
	}
}

func TestParamsSetReturnsThePreviousValueAndUndoRestoresIt(t *testing.T) {
	r := newROSRig(t)
	out := mustOK(t, r, RolePlanner, "params_set", `{"name":"/sim/led/brightness","number":0.8}`)
	if out["previous"] != 0.5 || out["value"] != 0.8 || out["previous_set"] != true {
		t.Fatalf("%v", out)
	}
	undo, _ := json.Marshal(out["undo"])
	mustOK(t, r, RolePlanner, "params_set", string(undo))
	if r.ros.params["/sim/led/brightness"] != 0.5 {
		t.Fatalf("undo left %v", r.ros.params["/sim/led/brightness"])
	}
	b := mustOK(t, r, RolePlanner, "params_set", `{"name":"/sim/led/enabled","boolean":true}`)
	if b["undo"].(map[string]any)["boolean"] != false {
		t.Fatalf("%v", b)
	}
}

// A value the robot itself refuses (a ROS 2 node checks a parameter's
// type) is invalid_argument, not retryable, with the node's reason.
// A name the transport cannot even ask about is refused as malformed, not
// as the robot's refusal.
func TestParamsSetReportsTheRobotsRefusal(t *testing.T) {
	for _, tt := range []struct {
		err        error
		rule, text string
	}{
		{fmt.Errorf("%w: /sim/led/brightness: Wrong parameter type", actuators.ErrRefusedByRobot), "accepted_by_robot", "Wrong parameter type"},
		{fmt.Errorf("%w: %q is not /<node>/<parameter>", actuators.ErrInvalidArgument, "/sim/led/brightness"), "well_formed", "is not /<node>/<parameter>"},
	} {
		r := newROSRig(t)
		r.ros.setErr = tt.err
		e := mustRefuse(t, r, "params_set", `{"name":"/sim/led/brightness","number":0.8}`, CodeInvalidArgument, tt.rule)
		if e.Retryable || !strings.Contains(e.Message, tt.text) {
			t.Fatalf("%+v", e)
		}
	}
}

func TestServiceRefusalsSendNothing(t *testing.T) {
	r := newROSRig(t)
	e := mustRefuse(t, r, "service_call", `{"service":"/sim/apply_faults"}`, CodePermissionDenied, "service_allowed")
	if e.Retryable || !strings.Contains(e.Expected, "/sim/status") {
		t.Fatalf("%+v", e)
	}
	if _, _, probes, _, _ := r.ros.counts(); probes != 0 {
		t.Fatalf("an unlisted service was probed %d times", probes)
	}
	mustRefuse(t, r, "service_call", `{"service":"/sim/map"}`, CodeInvalidArgument, "service_type_supported")
	mustRefuse(t, r, "service_call", `{"service":"/sim/led/set"}`, CodeInvalidArgument, "")
	e = mustRefuse(t, r, "service_call", `{"service":"/sim/led/set","request":{}}`, CodeInvalidArgument, "")
	if e.Field != "request.data" {
		t.Fatalf("field %q", e.Field)
	}
	mustRefuse(t, r, "service_call", `{"service":"/sim/status","request":{"data":true}}`, CodeInvalidArgument, "")
	mustRefuse(t, r, "service_call", `{"service":"/sim/led/set","request":{"data":"yes"}}`, CodeInvalidArgument, "")
	mustRefuse(t, r, "service_call", `{"service":"/sim/led/set","request":{"bogus":1}}`, CodeInvalidArgument, "")
	r.ros.services["/sim/led/set"] = "std_srvs/Trigger" // the pinned type no longer matches
	mustRefuse(t, r, "service_call", `{"service":"/sim/led/set","request":{}}`, CodePermissionDenied, "service_type_allowed")
	if _, _, _, calls, _ := r.ros.counts(); calls != 0 {
		t.Fatalf("refused requests reached services %d times", calls)
	}
}

// An action's own services are refused even where the allowlist covers
// them (/arm/** here): a goal sent through service_call would run
// unpreviewed, untracked and could be sent twice.
func TestActionServicesAreRefusedWhateverTheAllowlistSays(t *testing.T) {
	r := newROSRig(t)
	for _, name := range []string{"/arm/follow_joint_trajectory/_action/send_goal", "/arm/follow_joint_trajectory/_action/cancel_goal",
		"/arm/follow_joint_trajectory/_action/get_result"} {
		r.ros.services[name] = "std_srvs/Trigger"
		if e := mustRefuse(t, r, "service_call", `{"service":"`+name+`","request":{}}`, CodePermissionDenied, "not_action_internal"); e.Retryable {
			t.Fatalf("%s: refusal marked retryable", name)
		}
	}
	if _, _, probes, calls, _ := r.ros.counts(); probes+calls != 0 {
		t.Fatalf("an action's service was probed %d and called %d times", probes, calls)
	}
}

func TestReadAndWriteServicesAreCalledOnceAndAnswer(t *testing.T) {
	r := newROSRig(t)
	out := mustOK(t, r, RolePlanner, "service_call", `{"service":"/sim/led/set","request":{"data":true}}`)
	resp := out["response"].(map[string]any)
	if out["tier"] != "write" || resp["success"] != true || !strings.Contains(resp["message"].(string), `"data":true`) {
		t.Fatalf("%v", out)
	}
	mustOK(t, r, RolePlanner, "service_call", `{"service":"/sim/status"}`)
	if r.ros.calls["/sim/led/set"] != 1 || r.ros.calls["/sim/status"] != 1 {
		t.Fatalf("calls %v", r.ros.calls)
	}
	list := mustOK(t, r, RolePlanner, "services_list", `{}`)
	var names []string
	for _, it := range list["items"].([]any) {
		m := it.(map[string]any)
		names = append(names, m["name"].(string))
		if m["name"] == "/sim/map" && m["callable"] != false {
			t.Fatalf("GetMap listed as callable: %v", m)
		}
	}
	if strings.Join(names, " ") != "/sim/led/set /sim/map /sim/reset /sim/status" {
		t.Fatalf("listed %v", names)
	}
}

func TestIrreversibleServiceRunsOnlyThroughMotionConfirmAndOnce(t *testing.T) {
	r := newROSRig(t)
	pv := mustOK(t, r, RolePlanner, "service_call", `{"service":"/sim/reset"}`)
	if pv["preview_id"] == nil || pv["confirm_with"] != "motion_confirm" || pv["confirmed_by"] != "planner" {
		t.Fatalf("preview %v", pv)
	}
	if _, _, _, calls, _ := r.ros.counts(); calls != 0 {
		t.Fatal("a preview called the service")
	}
	c := mustOK(t, r, RolePlanner, "motion_confirm", `{"preview_id":"`+pv["preview_id"].(string)+`"}`)
	if c["state"] != "succeeded" || c["actuator"] != "service:/sim/reset" {
		t.Fatalf("confirm %v", c)
	}
	again := mustOK(t, r, RolePlanner, "motion_confirm", `{"preview_id":"`+pv["preview_id"].(string)+`"}`)
	if again["replay"] != true || again["motion_id"] != c["motion_id"] {
		t.Fatalf("retry %v", again)
	}
	if r.ros.calls["/sim/reset"] != 1 || r.robot.GoalsSent() != 0 {
		t.Fatalf("service called %d times, goals %d", r.ros.calls["/sim/reset"], r.robot.GoalsSent())
	}
	// a service that changed type since the preview is stale
	pv2 := mustOK(t, r, RolePlanner, "service_call", `{"service":"/sim/reset"}`)
	r.ros.services["/sim/reset"] = "std_srvs/Trigger"
	mustRefuse(t, r, "motion_confirm", `{"preview_id":"`+pv2["preview_id"].(string)+`"}`, CodeStalePreview, "")
	if r.ros.calls["/sim/reset"] != 1 {
		t.Fatal("a stale service preview was sent")
	}
}

func TestIrreversibleServiceUnderEStopOrOperatorPolicyIsNotCalled(t *testing.T) {
	r := newROSRig(t)
	pv := mustOK(t, r, RolePlanner, "service_call", `{"service":"/sim/reset"}`)
	mustOK(t, r, RolePlanner, "robot_stop", `{}`)
	mustRefuse(t, r, "service_call", `{"service":"/sim/reset"}`, CodeEstopLatched, "")
	mustRefuse(t, r, "motion_confirm", `{"preview_id":"`+pv["preview_id"].(string)+`"}`, CodeEstopLatched, "")
	_, ev, _ := r.estop.State()
	_ = r.estop.Reset(context.Background(), ev)
	r.tools.Policy.Services[2].Confirm = RoleOperator
	pv = mustOK(t, r, RolePlanner, "service_call", `{"service":"/sim/reset"}`)
	if pv["confirmed_by"] != "operator" {
		t.Fatalf("%v", pv)
	}
	mustRefuse(t, r, "motion_confirm", `{"preview_id":"`+pv["preview_id"].(string)+`"}`, CodePermissionDenied, "operator_confirms")
	if _, _, _, calls, _ := r.ros.counts(); calls != 0 {
		t.Fatalf("service called %d times", calls)
	}
	mustOK(t, r, RoleOperator, "motion_confirm", `{"preview_id":"`+pv["preview_id"].(string)+`"}`)
	if r.ros.calls["/sim/reset"] != 1 {
		t.Fatal("the operator's confirm did not call the service")
	}
}

func TestServiceAnsweringFailureEndsTheMotionAborted(t *testing.T) {
	r := newROSRig(t)
	r.ros.answer = map[string]any{"success": false, "message": "no"}
	pv := mustOK(t, r, RolePlanner, "service_call", `{"service":"/sim/reset"}`)
	c := mustOK(t, r, RolePlanner, "motion_confirm", `{"preview_id":"`+pv["preview_id"].(string)+`"}`)
	if c["state"] != "aborted" || !strings.Contains(c["error"].(string), "no") {
		t.Fatalf("%v", c)
	}
}

func TestCameraSnapshotFitsTheBudgetAndKeepsTheFullFrame(t *testing.T) {
	r := newROSRig(t)
	mustRefuse(t, r, "camera_snapshot", `{"topic":"/secret/cam"}`, CodePermissionDenied, "topic_allowed")
	if _, _, _, _, frames := r.ros.counts(); frames != 0 {
		t.Fatal("a refused snapshot subscribed")
	}
	for _, format := range []string{"jpeg", "png"} {
		out := mustOK(t, r, RolePlanner, "camera_snapshot", `{"topic":"/camera/rgb","max_bytes":8192,"format":"`+format+`"}`)
		img := out["image"].(map[string]any)
		if img["bytes"].(float64) > 8192 || img["format"] != format || out["width"] != 640.0 {
			t.Fatalf("%v", out)
		}
		data, mime, ok := r.images.Take(out["image_ref"].(string))
		if !ok || len(data) > 8192 || mime != "image/"+format {
			t.Fatalf("image %d bytes %s %v", len(data), mime, ok)
		}
		var err error
		if format == "jpeg" {
			_, err = jpeg.Decode(bytes.NewReader(data))
		} else {
			_, err = png.Decode(bytes.NewReader(data))
		}
		if err != nil {
			t.Fatal(err)
		}
		full, err := os.Open(out["path"].(string))
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := png.DecodeConfig(full)
		full.Close()
		if err != nil || cfg.Width != 640 || cfg.Height != 480 {
			t.Fatalf("full frame %v %v", cfg, err)
		}
	}
}

func TestImageContentIsAttachedByTheFront(t *testing.T) {
	r := newROSRig(t)
	front := &Front{Pipeline: r.p, Name: "actbridge", Version: "test", ServerOptions: r.events.ServerOptions, Images: r.images}
	r.events.Attach(front.Server(), r.store)
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := front.Server().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "camera_snapshot", Arguments: map[string]any{"topic": "/camera/rgb", "max_bytes": 20000}})
	if err != nil || res.IsError {
		t.Fatalf("%v %v", err, res)
	}
	var img *mcp.ImageContent
	for _, c := range res.Content {
		if ic, ok := c.(*mcp.ImageContent); ok {
			img = ic
		}
		if tc, ok := c.(*mcp.TextContent); ok && len(tc.Text) > 4000 {
			t.Fatalf("pixels in the text content: %d bytes", len(tc.Text))
		}
	}
	if img == nil || img.MIMEType != "image/jpeg" || len(img.Data) > 20000 {
		t.Fatalf("no image content within budget: %+v", res.Content)
	}
	if _, err := jpeg.Decode(bytes.NewReader(img.Data)); err != nil {
		t.Fatal(err)
	}
}

func TestTopicGuardRefusesUnlistedTopicsBeforeSubscribing(t *testing.T) {
	r := newROSRig(t)
	sample, _ := r.p.Registry.Lookup("topic_sample")
	mustRefuse(t, r, "topic_sample", `{"topic":"/joint_states"}`, CodePermissionDenied, "topic_allowed")
	mustRefuse(t, r, "topic_sample", `{"topic":"/camera/../secret"}`, CodeInvalidArgument, "")
	mustOK(t, r, RolePlanner, "topic_sample", `{"topic":"odom"}`)
	if !contains(sample.Errors, CodePermissionDenied) {
		t.Fatal("the guarded tool does not declare permission_denied")
	}
}

func TestROSToolResultsAndErrorsFitTheAdvertisedOutputSchema(t *testing.T) {
	r := newROSRig(t)
	front := &Front{Pipeline: r.p, Name: "actbridge", Version: "test", ServerOptions: r.events.ServerOptions, Images: r.images}
	r.events.Attach(front.Server(), r.store)
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := front.Server().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	lt, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	tools := map[string]*mcp.Tool{}
	for _, tl := range lt.Tools {
		tools[tl.Name] = tl
	}
	r.events.Emit(EventMaster, "master", "lost", nil)
	for _, c := range []struct {
		tool, args string
		isError    bool
	}{
		{"params_get", `{"prefix":"/sim"}`, false},
		{"params_get", `{"name":"/sim/secret/token"}`, true},
		{"params_set", `{"name":"/sim/led/brightness","number":0.1}`, false},
		{"params_set", `{"name":"/sim/led/brightness","number":7}`, true},
		{"services_list", `{}`, false},
		{"service_call", `{"service":"/sim/status"}`, false},
		{"service_call", `{"service":"/sim/reset"}`, false},
		{"service_call", `{"service":"/nope"}`, true},
		{"camera_snapshot", `{"topic":"/camera/rgb"}`, false},
		{"camera_snapshot", `{"topic":"/odom2"}`, true},
		{"events_read", `{}`, false},
		{"events_read", `{"cursor":"x"}`, true},
	} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: json.RawMessage(c.args)})
		if err != nil {
			t.Fatalf("%s: %v", c.tool, err)
		}
		if res.IsError != c.isError {
			t.Fatalf("%s %s: isError=%v: %v", c.tool, c.args, res.IsError, res.StructuredContent)
		}
		validateOutput(t, tools[c.tool], res)
	}
}

// ROS 2 service types take sequences and arrays: the request schema
// takes arrays for them, bounded, not numbers.
func TestRequestSchemaTakesROS2Arrays(t *testing.T) {
	st := actuators.ServiceType{Name: "x/srv/Y", Request: []actuators.ServiceField{
		{Name: "names", Type: "string[]"}, {Name: "few", Type: "int32[<=2]"}, {Name: "xyz", Type: "float64[3]"}}}
	s, err := typeSchema(st)
	if err != nil {
		t.Fatal(err)
	}
	n := json.Number("1")
	ok := map[string]any{"names": []any{"x"}, "few": []any{n, n}, "xyz": []any{n, n, n}}
	if err := s.Validate(ok); err != nil {
		t.Fatalf("valid request refused: %v", err)
	}
	for _, bad := range []map[string]any{
		{"names": n, "few": []any{}, "xyz": []any{n, n, n}},
		{"names": []any{n}, "few": []any{}, "xyz": []any{n, n, n}},
		{"names": []any{}, "few": []any{n, n, n}, "xyz": []any{n, n, n}},
		{"names": []any{}, "few": []any{}, "xyz": []any{n, n}},
		{"names": []any{}, "few": []any{json.Number("1.5")}, "xyz": []any{n, n, n}},
	} {
		if err := s.Validate(bad); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
}

// stopDuring runs robot_stop during the confirm of a service call: while
// the service's type is probed (before the request leaves) or while its
// answer is awaited.
type stopDuring struct {
	*fakeROS
	probe, call func()
	// unsent: the call waits for a server that never comes (the request
	// never leaves) until its context ends.
	unsent bool
	// wait bounds the wait for the context after call (default 10 s).
	wait time.Duration
	// ended reports whether the call's wait was ended by its context.
	ended bool
}

func (s *stopDuring) ServiceType(ctx context.Context, name string) (string, error) {
	if f := s.probe; f != nil {
		s.probe = nil
		f()
	}
	return s.fakeROS.ServiceType(ctx, name)
}

func (s *stopDuring) CallService(ctx context.Context, name, typ string, req map[string]any, timeout time.Duration) (map[string]any, error) {
	var resp map[string]any
	var err error
	if !s.unsent {
		resp, err = s.fakeROS.CallService(ctx, name, typ, req, timeout)
	}
	if f := s.call; f != nil {
		s.call = nil
		f()
		select {
		case <-ctx.Done():
			s.ended = true
			if s.unsent {
				return nil, fmt.Errorf("%w: no server ready: %w", actuators.ErrServiceNotSent, ctx.Err())
			}
			return nil, ctx.Err()
		case <-time.After(cmp.Or(s.wait, 10*time.Second)):
		}
	}
	return resp, err
}

// An irreversible service call is held to the e-stop as a goal is: a
// robot_stop that latches after confirm checked the e-stop but before the
// request leaves refuses it (never sent, rejected), and one that latches
// while its answer is awaited ends the wait (the motion unknown: it may
// have run).
func TestARobotStopDuringAServiceConfirmIsHonoured(t *testing.T) {
	stop := func(r *rosRig) func() { return func() { mustOK(t, r, RolePlanner, "robot_stop", `{}`) } }
	t.Run("before the request leaves", func(t *testing.T) {
		r, _, _, e := confirmServiceCall(t, stopDuring{}, func(r *rosRig, w *stopDuring) { w.probe = stop(r) })
		if e == nil || e.Code != CodeEstopLatched {
			t.Fatalf("%+v, want estop_latched", e)
		}
		if n := r.ros.calls["/sim/reset"]; n != 0 {
			t.Fatalf("the irreversible service was called %d times after robot_stop latched", n)
		}
	})
	t.Run("while it waits for a server", func(t *testing.T) {
		r, _, _, e := confirmServiceCall(t, stopDuring{unsent: true}, func(r *rosRig, w *stopDuring) { w.call = stop(r) })
		if e == nil || e.Code != CodeEstopLatched || r.ros.calls["/sim/reset"] != 0 {
			t.Fatalf("%+v, %d calls; want estop_latched, nothing sent", e, r.ros.calls["/sim/reset"])
		}
	})
	t.Run("while its answer is awaited", func(t *testing.T) {
		r, w, out, e := confirmServiceCall(t, stopDuring{}, func(r *rosRig, w *stopDuring) { w.call = stop(r) })
		if e != nil || !w.ended {
			t.Fatalf("%v %+v (wait ended by the stop: %v), want the motion answered unknown at once", out, e, w.ended)
		}
		if got := fmt.Sprint(out["state"]); got != "unknown" || r.ros.calls["/sim/reset"] != 1 {
			t.Fatalf("state %s, %d calls; want unknown after one call", got, r.ros.calls["/sim/reset"])
		}
	})
}

// confirmServiceCall previews an irreversible /sim/reset call and confirms
// it through w (a copy of with, over the rig's ROS), which set arms with
// what happens during the call.
func confirmServiceCall(t *testing.T, with stopDuring, set func(*rosRig, *stopDuring)) (*rosRig, *stopDuring, map[string]any, *Error) {
	t.Helper()
	r := newROSRig(t)
	pv := mustOK(t, r, RolePlanner, "service_call", `{"service":"/sim/reset"}`)
	w := &with
	w.fakeROS = r.ros
	r.m.ROS = w
	set(r, w)
	out, e := r.call(t, RolePlanner, "motion_confirm", `{"preview_id":"`+pv["preview_id"].(string)+`"}`)
	return r, w, out, e
}

// A service call cannot be taken back once its request may be out: a
// motion_cancel while its answer is awaited neither cuts the wait short
// nor says it was withdrawn, and the service stays busy until the answer,
// so a second confirm cannot run it beside the first.
func TestAMotionCancelNeverWithdrawsAServiceCallInFlight(t *testing.T) {
	var cancelOut map[string]any
	var second *Error
	r, w, out, e := confirmServiceCall(t, stopDuring{wait: 300 * time.Millisecond}, func(r *rosRig, w *stopDuring) {
		w.call = func() {
			id, _ := r.m.ActiveOn(ServiceActuator("/sim/reset"))
			cancelOut, _ = r.call(t, RolePlanner, "motion_cancel", `{"motion_id":"`+id+`"}`)
			pv2 := mustOK(t, r, RolePlanner, "service_call", `{"service":"/sim/reset"}`)
			_, second = r.call(t, RolePlanner, "motion_confirm", `{"preview_id":"`+pv2["preview_id"].(string)+`"}`)
		}
	})
	if e != nil || w.ended || fmt.Sprint(out["state"]) != "succeeded" {
		t.Fatalf("%v %+v (wait cut short: %v), want the call answered and succeeded", out, e, w.ended)
	}
	if note, _ := cancelOut["note"].(string); strings.Contains(note, "withdrawn") {
		t.Fatalf("motion_cancel said %q of a request that was out", note)
	}
	if second == nil || second.Code != CodeBusy || r.ros.calls["/sim/reset"] != 1 {
		t.Fatalf("second confirm: %+v, %d calls; want busy and one call", second, r.ros.calls["/sim/reset"])
	}
}
