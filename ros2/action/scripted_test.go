package action

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/actbridge/actbridge/cdr"
	"github.com/actbridge/actbridge/msgs/ros2"
	"github.com/actbridge/actbridge/ros2/names"
	"github.com/actbridge/actbridge/ros2/qos"
	"github.com/actbridge/actbridge/ros2/service"
	"github.com/actbridge/actbridge/rtps"
)

// scriptedServer is a FollowJointTrajectory action server for these
// tests, scripted by the goal's first joint name: "succeed" runs three
// feedbacks then succeeds, "hold" executes until canceled, "reject" is
// rejected, "preempt" aborts every live goal (as Jazzy's
// joint_trajectory_controller does) and then holds. Like the vendor peers it fails the test if it ever sees a
// goal UUID twice.
type scriptedServer struct {
	t        *testing.T
	fb, st   *rtps.Writer
	services []*service.Server
	fbT, stT *cdr.Struct
	resultT  *cdr.Struct

	mu      sync.Mutex
	seen    map[GoalID]int
	goals   map[GoalID]*serverGoal
	order   []GoalID
	changed chan struct{}
	wg      sync.WaitGroup
	ctx     context.Context
	stop    context.CancelFunc
}

type serverGoal struct {
	status int8
	result *cdr.Message
}

const fjt = "control_msgs/action/FollowJointTrajectory"

func newScriptedServer(t *testing.T, p *rtps.Participant, set *msgs.Set, action string) *scriptedServer {
	t.Helper()
	an, _ := names.ActionNames(action)
	dds, _ := names.ActionTypesDDS(fjt)
	s := &scriptedServer{t: t, seen: map[GoalID]int{}, goals: map[GoalID]*serverGoal{}, changed: make(chan struct{})}
	s.fbT, _ = set.Struct(fjt + "_FeedbackMessage")
	s.stT, _ = set.Struct("action_msgs/msg/GoalStatusArray")
	s.resultT, _ = set.Struct(fjt + "_Result")
	fbTopic, _ := names.TopicDDS(an.Feedback)
	stTopic, _ := names.TopicDDS(an.Status)
	var err error
	if s.fb, err = p.NewWriter(rtps.EndpointData{Topic: fbTopic, Type: dds.Feedback, QoS: qos.Default.QoS}); err != nil {
		t.Fatal(err)
	}
	if s.st, err = p.NewWriter(rtps.EndpointData{Topic: stTopic, Type: dds.Status, QoS: qos.ActionStatus.QoS}); err != nil {
		t.Fatal(err)
	}
	s.ctx, s.stop = context.WithCancel(context.Background())
	for _, sv := range []struct {
		srv, name string
		h         func(req *cdr.Message, rep *cdr.Message) bool
	}{
		{fjt + "_SendGoal", an.SendGoal, s.sendGoal},
		{fjt + "_GetResult", an.GetResult, s.getResult},
		{"action_msgs/srv/CancelGoal", an.CancelGoal, s.cancelGoal},
	} {
		ty, err := service.ResolveTypes(set, sv.srv)
		if err != nil {
			t.Fatal(err)
		}
		srv, err := service.NewServer(p, ty, sv.name, func(ctx context.Context, req *cdr.Message) (*cdr.Message, error) {
			rep := cdr.Zero(ty.Response)
			if !sv.h(req, rep) {
				return nil, errors.New("server stopping: no reply")
			}
			return rep, nil
		}, service.Options{})
		if err != nil {
			t.Fatal(err)
		}
		s.services = append(s.services, srv)
	}
	t.Cleanup(s.close)
	return s
}

func (s *scriptedServer) close() {
	s.stop()
	s.mu.Lock()
	s.notify()
	s.mu.Unlock()
	s.wg.Wait()
	for _, sv := range s.services {
		sv.Close()
	}
	s.fb.Close()
	s.st.Close()
}

func (s *scriptedServer) notify() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// timesSeen is how often a UUID came in a send_goal request.
func (s *scriptedServer) timesSeen(id GoalID) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.seen[id]
}

func (s *scriptedServer) sendGoal(req, rep *cdr.Message) bool {
	id := goalIDOf(req)
	goal := req.Get("goal").(*cdr.Message)
	joints := goal.Get("trajectory").(*cdr.Message).Get("joint_names").([]string)
	script := ""
	if len(joints) > 0 {
		script = joints[0]
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seen[id]++
	if s.seen[id] > 1 {
		s.t.Errorf("server: goal UUID %x received twice", id[:])
		return false
	}
	if script == "reject" {
		return true
	}
	rep.Set("accepted", true)
	if script == "preempt" {
		for _, g := range s.goals {
			if g.status < 4 {
				g.status = 6
				g.result = cdr.Zero(s.resultT)
				g.result.Set("error_code", int32(-1))
				g.result.Set("error_string", "Current goal preempted by new incoming action.")
			}
		}
		s.notify()
	}
	s.goals[id] = &serverGoal{status: 2}
	s.order = append(s.order, id)
	s.publishStatus()
	s.wg.Go(func() { s.run(id, script) })
	return true
}

// run executes a goal: feedback, then the end its script says.
func (s *scriptedServer) run(id GoalID, script string) {
	for i := range 3 {
		fb := cdr.Zero(s.fbT)
		fb.Set("goal_id", uuidMessage(s.fbT, id))
		fb.Get("feedback").(*cdr.Message).Set("joint_names", []string{script, string(rune('a' + i))})
		b, _ := cdr.Encode(fb, cdr.LittleEndian)
		s.fb.Write(b, nil)
		select {
		case <-time.After(50 * time.Millisecond):
		case <-s.ctx.Done():
			return
		}
	}
	if script != "succeed" {
		return // held until canceled
	}
	s.finish(id, 4, 0, "done")
}

func (s *scriptedServer) finish(id GoalID, status int8, code int32, msg string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	g := s.goals[id]
	if g == nil || g.status >= 4 {
		return
	}
	g.status = status
	g.result = cdr.Zero(s.resultT)
	g.result.Set("error_code", code)
	g.result.Set("error_string", msg)
	s.publishStatus()
	s.notify()
}

// publishStatus writes the status of every goal; s.mu must be held.
func (s *scriptedServer) publishStatus() {
	arr := cdr.Zero(s.stT)
	elem := arr.Type.Field(0).Type
	list := cdr.MakeSlice(elem, len(s.order)).([]*cdr.Message)
	for i, id := range s.order {
		info := list[i].Get("goal_info").(*cdr.Message)
		info.Set("goal_id", uuidMessage(info.Type, id))
		list[i].Set("status", s.goals[id].status)
	}
	arr.Set("status_list", list)
	b, err := cdr.Encode(arr, cdr.LittleEndian)
	if err != nil {
		s.t.Error(err)
		return
	}
	s.st.Write(b, nil)
}

// getResult answers when the goal has ended, UNKNOWN (0) for a goal the
// server does not know; a server stopping first answers nothing.
func (s *scriptedServer) getResult(req, rep *cdr.Message) bool {
	id := goalIDOf(req)
	for {
		s.mu.Lock()
		g, ch := s.goals[id], s.changed
		if g == nil || g.status >= 4 {
			if g != nil {
				rep.Set("status", g.status)
				rep.Set("result", g.result)
			}
			s.mu.Unlock()
			return true
		}
		s.mu.Unlock()
		select {
		case <-ch:
		case <-s.ctx.Done():
			return false
		}
	}
}

// cancelGoal cancels one goal or, for a zero id, all.
func (s *scriptedServer) cancelGoal(req, rep *cdr.Message) bool {
	id := goalIDOf(req.Get("goal_info").(*cdr.Message))
	var canceled []GoalID
	s.mu.Lock()
	for gid, g := range s.goals {
		if (id == GoalID{} || id == gid) && g.status < 4 {
			canceled = append(canceled, gid)
		}
	}
	s.mu.Unlock()
	infoT := rep.Type.Field(rep.Type.FieldIndex("goals_canceling")).Type
	infos := cdr.MakeSlice(infoT, len(canceled)).([]*cdr.Message)
	for i, gid := range canceled {
		infos[i].Set("goal_id", uuidMessage(infos[i].Type, gid))
		s.finish(gid, 5, -1, "canceled")
	}
	rep.Set("goals_canceling", infos)
	if len(canceled) == 0 {
		rep.Set("return_code", int8(2))
	}
	return true
}
