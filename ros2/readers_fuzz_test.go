package ros2

import (
	"encoding/json"
	"math"
	"testing"
	"time"

	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/cdr"
	"github.com/actbridge/actbridge/config"
	"github.com/actbridge/actbridge/msgs/ros2"
	"github.com/actbridge/actbridge/ros2/service"
	"github.com/actbridge/actbridge/spline"
)

// fuzzStruct is a Jazzy type, for the fuzz targets of what robots send.
func fuzzStruct(f *testing.F, typ string) *cdr.Struct { return zeroMsg(f, msgs.Jazzy, typ).Type }

// seed adds the encoding of m, and of its zero value, to f's corpus.
func seed(f *testing.F, m *cdr.Message) {
	for _, m := range []*cdr.Message{m, cdr.Zero(m.Type)} {
		b, err := cdr.Encode(m, cdr.LittleEndian)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
}

// FuzzJointStateReader: any JointState sample decodes or fails, and its
// readings are one per named joint that has a position, never more.
func FuzzJointStateReader(f *testing.F) {
	js := fuzzStruct(f, jointStateType)
	m := cdr.Zero(js)
	m.Set("name", []string{"a", "b"})
	m.Set("position", []float64{1, 2})
	m.Set("effort", []float64{3})
	seed(f, m)
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := cdr.Decode(js, b)
		if err != nil {
			return
		}
		names, _ := m.Get("name").([]string)
		pos, _ := m.Get("position").([]float64)
		if got := jointReadings(m); len(got) > min(len(names), len(pos)) {
			t.Fatalf("%d readings from %d names and %d positions", len(got), len(names), len(pos))
		}
	})
}

// FuzzOdometryReader: any Odometry sample decodes or fails, and a pose
// kept is finite and in the message's frame or the configured one.
func FuzzOdometryReader(f *testing.F) {
	odom := fuzzStruct(f, odometryType)
	m := cdr.Zero(odom)
	path(m, "header").(*cdr.Message).Set("frame_id", "map")
	path(m, "pose", "pose", "orientation").(*cdr.Message).Set("w", 1.0)
	seed(f, m)
	path(m, "pose", "pose", "position").(*cdr.Message).Set("x", math.NaN())
	seed(f, m)
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := cdr.Decode(odom, b)
		if err != nil {
			return
		}
		c := &odomCache{frame: "odom"}
		now := time.Now()
		c.store(m, now)
		if p, ok := c.latest(now); ok && (p.Frame == "" || !finiteAll(p.X, p.Y, p.Yaw)) {
			t.Fatalf("kept %+v", p)
		}
	})
}

// goalCodecs are the codecs of every action kind, with a goal each accepts.
func goalCodecs(f *testing.F) []struct {
	c    goalCodec
	goal actuators.Goal
} {
	grip := func(typ string) goalCodec {
		c, err := newGripperCodec(config.ActuatorConfig{Name: "gripper", Joints: []string{"finger"}, ActionType: typ},
			func(j string) (float64, bool) { return 0.04, j == "finger" })
		if err != nil {
			f.Fatal(err)
		}
		return c
	}
	return []struct {
		c    goalCodec
		goal actuators.Goal
	}{
		{newTrajectoryCodec([]string{"j"}), actuators.Trajectory{Joints: []string{"j"}, Points: []spline.Point{{Positions: []float64{0.5}, Time: 2}}}},
		{grip(config.GripperActionCommand), actuators.GripperCommand{Position: 0.01, MaxEffort: 5}},
		{grip(config.GripperActionParallel), actuators.GripperCommand{Position: 0.01, MaxEffort: 5}},
		{navigateCodec{frame: "odom"}, actuators.Navigate{Target: actuators.Pose2D{X: 2}}},
	}
}

// FuzzGoalResultReader: any result of any action kind's server is read
// without panic into a result the planner can be sent (JSON).
func FuzzGoalResultReader(f *testing.F) {
	codecs := goalCodecs(f)
	types := make([]*cdr.Struct, len(codecs))
	for i, k := range codecs {
		types[i] = fuzzStruct(f, k.c.actionType()+"_Result")
		m := cdr.Zero(types[i])
		f.Add(uint8(i), mustEncode(f, m))
		if m.Type.FieldIndex("position") >= 0 {
			m.Set("position", math.NaN()) // a robot's NaN, which JSON cannot carry
			f.Add(uint8(i), mustEncode(f, m))
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, b []byte) {
		i := int(which) % len(codecs)
		m, err := cdr.Decode(types[i], b)
		if err != nil {
			return
		}
		out := codecs[i].c.outcome(m)
		if _, err := json.Marshal(out.result); err != nil {
			t.Fatalf("%s result %+v: %v", codecs[i].c.actionType(), out.result, err)
		}
	})
}

// FuzzGoalFeedbackReader: any feedback of any action kind's server gives
// a progress in [0, 1], or none.
func FuzzGoalFeedbackReader(f *testing.F) {
	codecs := goalCodecs(f)
	types := make([]*cdr.Struct, len(codecs))
	progress := make([]progressFunc, len(codecs))
	for i, k := range codecs {
		goal, err := cdr.Decode(fuzzStruct(f, k.c.actionType()+"_Goal"), mustEncode(f, cdr.Zero(fuzzStruct(f, k.c.actionType()+"_Goal"))))
		if err != nil {
			f.Fatal(err)
		}
		if progress[i], err = k.c.build(goal, k.goal); err != nil {
			f.Fatal(err)
		}
		types[i] = fuzzStruct(f, k.c.actionType()+"_Feedback")
		f.Add(uint8(i), mustEncode(f, cdr.Zero(types[i])))
	}
	f.Fuzz(func(t *testing.T, which uint8, b []byte) {
		i := int(which) % len(codecs)
		m, err := cdr.Decode(types[i], b)
		if err != nil {
			return
		}
		if p, ok := progress[i](m); ok && !(p >= 0 && p <= 1) {
			t.Fatalf("%s feedback: progress %v", codecs[i].c.actionType(), p)
		}
	})
}

func mustEncode(f *testing.F, m *cdr.Message) []byte {
	b, err := cdr.Encode(m, cdr.LittleEndian)
	if err != nil {
		f.Fatal(err)
	}
	return b
}

// FuzzTypeDescriptionReply: any GetTypeDescription reply a node sends
// for a service type is refused or gives that type's request and reply,
// proven against the hash its server announced.
func FuzzTypeDescriptionReply(f *testing.F) {
	set, err := msgs.Load(msgs.Jazzy)
	if err != nil {
		f.Fatal(err)
	}
	const typ = "std_srvs/srv/SetBool"
	gtd, err := service.ResolveTypes(set, typeGetTypeDescription)
	if err != nil {
		f.Fatal(err)
	}
	good, err := set.Describe(typ)
	if err != nil {
		f.Fatal(err)
	}
	desc, err := good.Message(gtd.Response.Field(gtd.Response.FieldIndex("type_description")).Type.Struct)
	if err != nil {
		f.Fatal(err)
	}
	rep := cdr.Zero(gtd.Response)
	rep.Set("successful", true)
	rep.Set("type_description", desc)
	seed(f, rep)
	f.Fuzz(func(t *testing.T, b []byte) {
		rep, err := cdr.Decode(gtd.Response, b)
		if err != nil {
			return
		}
		types, err := describedTypes(rep, msgs.Jazzy, "/n/get_type_description", typ, good.Hash())
		if err == nil && (types.Request == nil || types.Response == nil) {
			t.Fatalf("no error, and types %+v", types)
		}
	})
}
