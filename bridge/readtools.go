package bridge

import (
	"context"
	"encoding/json"
	"fmt"
	"path"
	"strings"
	"time"

	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/allowlist"
)

// Result budgets for free-size outputs.
const (
	// MaxInlineBytes is the most a sampled-topic result carries inline; more
	// goes to a file under the data dir, with a summary and the path.
	MaxInlineBytes = 16 << 10
	maxSamples     = 20
)

func joinsOut() *Schema {
	return &Schema{Type: "object", Open: true, Properties: map[string]*Schema{
		"joints":     {Type: "array", Description: "One entry per joint: name, position, velocity, effort."},
		"age_s":      {Type: "number", Description: "Seconds since the last /joint_states message."},
		"stale":      {Type: "boolean", Description: "True when age_s exceeds the staleness bound: do not act on these values."},
		"truncated":  {Type: "boolean", Description: "Always false: every requested joint is listed."},
		"tool_poses": {Type: "array", Description: "Per arm: actuator, link (its tool_link), frame (its base_link), position [x, y, z] in m and orientation [x, y, z, w], from the joints read."},
	}, Required: []string{"joints", "age_s", "stale"}}
}

// JointsReadTool reports joint positions and velocities and how old they
// are, and the tool pose of each of arms that has a kinematic model.
func JointsReadTool(robot actuators.State, staleAfter time.Duration, now func() time.Time, arms ...*ArmModel) *Tool {
	return &Tool{
		Name: "joints_read", Group: "joints", Tier: TierRead, Quick: true, Title: "Read joint states", TouchesRobot: true, Idempotent: true,
		Description: Describe("Returns the latest position, velocity and effort of the arm and gripper joints, with the age of the reading.",
			"you need the robot's current configuration, before previewing a motion or after one ends.",
			"limits or actuator connectivity (use robot_describe); motion progress (use motion_status).",
			"none; reads the last /joint_states message the bridge received.",
			"one entry per joint (about 7; under 1 KB), age_s and stale (true when older than the bound: the robot or its driver may be down), and tool_poses: per arm its tool link's pose in its base link (position in m, orientation quaternion x, y, z, w)."),
		Input: Object("", map[string]*Schema{
			"joints": Array("Only these joints, by name. Default all joints.", Str("A joint name.", 128), 64),
		}),
		Output: joinsOut(),
		Errors: []Code{CodeInvalidArgument, CodeNotFound, CodeUnavailable, CodeInternal},
		Call: func(_ context.Context, c *Call) (any, error) {
			var in struct {
				Joints []string `json:"joints"`
			}
			if err := c.Decode(&in); err != nil {
				return nil, err
			}
			snap := robot.Joints()
			if snap.Received.IsZero() {
				return nil, StateError(CodeUnavailable, "no /joint_states received yet", "when the robot's joint_state publisher runs", "no joint states yet")
			}
			out := snap.Joints
			if len(in.Joints) > 0 {
				byName := map[string]actuators.JointReading{}
				for _, j := range snap.Joints {
					byName[j.Name] = j
				}
				out = nil
				for _, n := range in.Joints {
					j, ok := byName[n]
					if !ok {
						e := RuleError(CodeNotFound, "joint_exists", "joints", fmt.Sprintf("no joint named %s", quote(n)))
						e.Expected, e.Actual = "one of: "+jointNames(snap.Joints), quote(n)
						return nil, e
					}
					out = append(out, j)
				}
			}
			age := now().Sub(snap.Received).Seconds()
			return jointsResult{AgeS: round3(age), Joints: out, Stale: age > staleAfter.Seconds(), ToolPoses: toolPoses(arms, snap.Joints)}, nil
		},
	}
}

// jointsResult is joints_read's result. Its fields are in the order a map
// would marshal them, so the bytes stay what they were; a struct because
// every planner reads it, often, and a map costs a sort and boxing per call.
type jointsResult struct {
	AgeS      float64                  `json:"age_s"`
	Joints    []actuators.JointReading `json:"joints"`
	Stale     bool                     `json:"stale"`
	ToolPoses []ToolPose               `json:"tool_poses,omitempty"` // arms with a kinematic model
	Truncated bool                     `json:"truncated"`            // always false: every requested joint is listed
}

func jointNames(js []actuators.JointReading) string {
	names := make([]string, len(js))
	for i, j := range js {
		names[i] = j.Name
	}
	return strings.Join(names, ", ")
}

func round3(f float64) float64 { return float64(int64(f*1000)) / 1000 }

// ConnectedGraph is a graph that says whether the transport reaches it.
type ConnectedGraph interface {
	actuators.Graph
	Connected() bool
}

// TopicsListTool lists the ROS graph's topics, paginated and sorted by
// name: to the planner only those topic_sample may read (topics), to the
// operator every topic, marked.
func TopicsListTool(robot ConnectedGraph, topics allowlist.Globs) *Tool {
	return &Tool{
		Name: "topics_list", Group: "topics", Tier: TierRead, Title: "List ROS topics", TouchesRobot: true, Idempotent: true,
		Description: Describe("Lists the ROS topics you may sample (the robot config's topic allowlist) that exist now, with their message types, sorted by name and paginated.",
			"you need to know which sensors or state topics exist before sampling one with topic_sample.",
			"reading values (use topic_sample, joints_read); actions (use the motion tools); topics outside the allowlist (never listed; robot_describe shows the allowlist).",
			"none; asks the ROS master.",
			"{items: [{name, type}], total, next_cursor}; at most `limit` items (default 50) per page. With the operator's token every topic is listed, each with planner_allowed."),
		Input: Object("", map[string]*Schema{
			"prefix": {Type: "string", Description: "Only topics whose name starts with this. Default all.", MaxLength: Int(256), Pattern: `^[/A-Za-z0-9_~]*$`},
			"limit":  Integer("Items per page. Default 50.", 1, 200),
			"cursor": Str("next_cursor from the previous page. Default: first page.", 512),
		}),
		Output: pageOut("Topics: name and type (operator: also planner_allowed)."),
		Errors: []Code{CodeInvalidArgument, CodeUnavailable, CodeInternal},
		Call: func(ctx context.Context, c *Call) (any, error) {
			var in struct {
				Prefix string `json:"prefix"`
				Limit  int    `json:"limit"`
				Cursor string `json:"cursor"`
			}
			if err := c.Decode(&in); err != nil {
				return nil, err
			}
			if !robot.Connected() {
				return nil, StateError(CodeUnavailable, "ROS master unreachable", "when the master answers again (the bridge re-registers within seconds)", "cannot list topics")
			}
			all, err := robot.Topics(ctx)
			if err != nil {
				return nil, StateError(CodeUnavailable, "ROS master error: "+err.Error(), "retry shortly", "cannot list topics")
			}
			var sel []map[string]any
			for _, t := range all {
				_, allowed := topics.Match(t.Name)
				if strings.HasPrefix(t.Name, in.Prefix) && listed(c.Role, allowed) {
					sel = append(sel, markReach(map[string]any{"name": t.Name, "type": t.Type}, c.Role, allowed))
				}
			}
			p, perr := Paginate(sel, func(t map[string]any) string { return t["name"].(string) }, in.Cursor, QueryKey("topics", in.Prefix, c.Role), in.Limit)
			if perr != nil {
				return nil, perr
			}
			return p, nil
		},
	}
}

func pageOut(items string) *Schema {
	return &Schema{Type: "object", Open: true, Properties: map[string]*Schema{
		"items":       {Type: "array", Description: items},
		"total":       {Type: "integer", Description: "Items in the whole list."},
		"next_cursor": {Type: "string", Description: "Cursor of the next page; empty on the last page."},
	}, Required: []string{"items", "total", "next_cursor"}}
}

// TopicSampleTool reads a few messages of a topic as JSON, clipped; a large
// result goes to a file under dataDir with a summary and the path.
func TopicSampleTool(robot actuators.Graph, dataDir string, topics allowlist.Globs) *Tool {
	return &Tool{
		Name: "topic_sample", Group: "topics", Tier: TierRead, Title: "Sample a ROS topic", TouchesRobot: true,
		Description: Describe("Subscribes to a topic, waits for up to n messages (bounded by timeout_s) and returns them as JSON.",
			"you need a sensor or state value that no dedicated tool reads (check names with topics_list).",
			"joint states (joints_read is cheaper); high-rate streams or images (sample 1-2 messages at most).",
			"none on the robot; a short-lived subscription.",
			fmt.Sprintf("{topic, type, count, messages, truncated}; messages above %d KB in total are written to a file and the result holds a summary and the path (read it with output_read).", MaxInlineBytes>>10)),
		Input: Object("", map[string]*Schema{
			"topic":     {Type: "string", Description: "Topic name, e.g. /odom.", MinLength: Int(1), MaxLength: Int(256), Pattern: `^/?[A-Za-z][A-Za-z0-9_/~]*$`},
			"n":         Integer("Messages to collect. Default 1.", 1, maxSamples),
			"timeout_s": Num("Longest wait for the messages in seconds. Default 2.", 0.1, 10),
			"max_bytes": Integer(fmt.Sprintf("Largest inline result; more goes to a file. Default %d.", MaxInlineBytes), 512, MaxInlineBytes),
		}, "topic"),
		Semantic: topicAllowed(topics),
		Output: &Schema{Type: "object", Open: true, Properties: map[string]*Schema{
			"topic":     {Type: "string", Description: "The topic sampled."},
			"count":     {Type: "integer", Description: "Messages received."},
			"messages":  {Type: "array", Description: "The messages as JSON (absent when written to a file)."},
			"truncated": {Type: "boolean", Description: "True when the messages were written to `path` instead."},
			"path":      {Type: "string", Description: "File holding all messages when truncated."},
			"summary":   {Type: "string", Description: "Head of the messages, clipped, when truncated."},
		}, Required: []string{"topic", "count", "truncated"}},
		Errors: []Code{CodeInvalidArgument, CodeNotFound, CodeUnavailable, CodeInternal, CodePermissionDenied},
		Call: func(ctx context.Context, c *Call) (any, error) {
			var in struct {
				Topic    string  `json:"topic"`
				N        int     `json:"n"`
				TimeoutS float64 `json:"timeout_s"`
				MaxBytes int     `json:"max_bytes"`
			}
			if err := c.Decode(&in); err != nil {
				return nil, err
			}
			if in.MaxBytes == 0 {
				in.MaxBytes = MaxInlineBytes
			}
			if in.N == 0 {
				in.N = 1
			}
			if in.TimeoutS == 0 {
				in.TimeoutS = 2
			}
			if !strings.HasPrefix(in.Topic, "/") {
				in.Topic = "/" + in.Topic
			}
			msgs, err := robot.SampleTopic(ctx, path.Clean(in.Topic), in.N, time.Duration(in.TimeoutS*float64(time.Second)))
			if err != nil {
				return nil, AsError(sampleError(robot, err))
			}
			b, _ := json.Marshal(msgs)
			if len(b) <= in.MaxBytes {
				return map[string]any{"topic": in.Topic, "count": len(msgs), "messages": msgs, "truncated": false}, nil
			}
			p, serr := Spill(dataDir+"/outputs", "topic", b)
			if serr != nil {
				return nil, Errf(CodeInternal, "could not store a large result: %v", serr)
			}
			sum, _ := Clip(string(b), in.MaxBytes/4)
			return map[string]any{"topic": in.Topic, "count": len(msgs), "truncated": true, "path": p,
				"summary": sum, "bytes": len(b)}, nil
		},
	}
}

// topicAllowed is the semantic check of a tool with a `topic` argument:
// a topic outside the allowlist is refused before anything subscribes.
func topicAllowed(topics allowlist.Globs) func(context.Context, *Call) error {
	return func(_ context.Context, c *Call) error {
		topic, _ := c.Values["topic"].(string)
		if !strings.HasPrefix(topic, "/") {
			topic = "/" + topic
		}
		if _, ok := topics.Match(path.Clean(topic)); !ok {
			return notAllowed("topic_allowed", "topic", "topic", topic, "access.topics", topics).
				WithHint("robot_describe lists the topics that may be read")
		}
		return nil
	}
}

// OutputReadTool reads a byte or line range of a result written to a file.
func OutputReadTool(dataDir string) *Tool {
	return &Tool{
		Name: "output_read", Group: "output", Tier: TierRead, Quick: true, Title: "Read a stored large result", Idempotent: true,
		Description: Describe("Reads part of a large result that another tool wrote to a file (its `path`), by byte range or by lines.",
			"a result said truncated: true and gave a path.",
			"any other file: only files the bridge wrote can be read.",
			"none.",
			"{path, size, text, truncated}; text is at most 16 KB per call: page with offset or from_line."),
		Input: Object("", map[string]*Schema{
			"path":      Str("The path a truncated result gave.", 1024),
			"offset":    Integer("Byte offset to start at. Default 0.", 0, 1<<40),
			"length":    Integer("Bytes to read. Default 16384.", 1, MaxInlineBytes),
			"from_line": Integer("First line (1-based) when reading by lines. Default: read by bytes.", 1, 1<<30),
			"lines":     Integer("Lines to read from from_line. Default: read by bytes.", 1, 1000),
		}, "path"),
		Output: &Schema{Type: "object", Open: true, Properties: map[string]*Schema{
			"path": {Type: "string", Description: "The file."}, "size": {Type: "integer", Description: "File size in bytes."},
			"text": {Type: "string", Description: "The requested range."}, "truncated": {Type: "boolean", Description: "True when the range was cut to 16 KB."},
		}, Required: []string{"path", "size", "text"}},
		Errors: []Code{CodeInvalidArgument, CodeNotFound, CodePermissionDenied, CodeInternal},
		Call: func(_ context.Context, c *Call) (any, error) {
			var in struct {
				Path           string `json:"path"`
				Offset, Length int
				FromLine       int `json:"from_line"`
				Lines          int `json:"lines"`
			}
			if err := c.Decode(&in); err != nil {
				return nil, err
			}
			if in.Length == 0 {
				in.Length = MaxInlineBytes
			}
			text, size, err := ReadRange(dataDir+"/outputs", in.Path, in.Offset, in.Length, in.FromLine, in.Lines)
			if err != nil {
				return nil, err
			}
			clipped, cut := Clip(text, MaxInlineBytes)
			return map[string]any{"path": in.Path, "size": size, "text": clipped, "truncated": cut}, nil
		},
	}
}
