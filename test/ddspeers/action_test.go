package ddspeers

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/actbridge/actbridge/msgs/ros2"
)

const (
	goalA = "0a0a0a0a-0000-4000-8000-00000000000a"
	goalB = "0b0b0b0b-0000-4000-8000-00000000000b"
)

// runAction runs an action-server with server flags and an action-client
// with client flags in one namespace and returns both event lists once
// the client is done.
func runAction(t *testing.T, p *NodePeers, bin string, server []string, goals []string, client ...string) (srv, cli []ActionEvent) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	s, ns := startReady(ctx, t, func(ns string) *Proc {
		return p.StartActionServer(t, ns, bin, "/arm/follow_joint_trajectory", server...)
	}, "ready")
	c := StartActionClient(t, ns, bin, "/arm/follow_joint_trajectory", goals, append([]string{"--timeout", "20"}, client...)...)
	if err := c.Wait(ctx); err != nil {
		t.Fatalf("client: %v: %s\nserver: %s", err, c.Stderr(), s.Stderr())
	}
	if err := s.Stop(ctx); err != nil {
		t.Fatalf("server: %v: %s", err, s.Stderr())
	}
	return jsonLines[ActionEvent](t, s), jsonLines[ActionEvent](t, c)
}

// events returns the event names of the goal (all goals when id is
// empty), in order, with the status of results.
func events(evs []ActionEvent, id string) []string {
	var out []string
	for _, e := range evs {
		if id != "" && e.GoalID != id || e.Event == "status" {
			continue
		}
		switch e.Event {
		case "result", "get_result":
			out = append(out, fmt.Sprintf("%s %d", e.Event, e.Status))
		default:
			out = append(out, e.Event)
		}
	}
	return out
}

func lastResult(t *testing.T, evs []ActionEvent, id string) ActionEvent {
	t.Helper()
	for _, e := range slices.Backward(evs) {
		if e.Event == "result" && e.GoalID == id {
			return e
		}
	}
	t.Fatalf("no result for %s in %v", id, evs)
	return ActionEvent{}
}

// TestActionServerPlaysItsScript drives each vendor's scripted
// FollowJointTrajectory server with the same vendor's client: the goal's
// events on the server and what the client gets back follow the script.
func TestActionServerPlaysItsScript(t *testing.T) {
	// Humble and Jazzy share a build; Kilted's feedback has two more fields.
	for _, d := range []msgs.Distro{msgs.Jazzy, msgs.Humble, msgs.Kilted} {
		p := BuildNodes(t, d)
		for _, v := range nodeVendors(t, p) {
			for _, tc := range []struct {
				name           string
				server, client []string
				goals          []string
				serverEvents   []string // of the last goal
				result         ActionEvent
			}{
				{"succeed", []string{"--feedback", "2"}, nil, []string{goalA},
					[]string{"goal", "accepted", "feedback", "feedback", "result 4", "get_result 4"}, ActionEvent{Status: 4}},
				{"abort", []string{"--feedback", "1", "--outcome", "abort"}, nil, []string{goalA},
					[]string{"goal", "accepted", "feedback", "result 6", "get_result 6"}, ActionEvent{Status: 6, ErrorCode: -4}},
				{"reject", []string{"--goal", "reject"}, nil, []string{goalA},
					[]string{"goal", "rejected"}, ActionEvent{}},
				{"cancel", []string{"--outcome", "hold", "--feedback", "1"}, []string{"--cancel-goal", goalA}, []string{goalA},
					[]string{"goal", "accepted", "feedback", "cancel", "result 5", "get_result 5"}, ActionEvent{Status: 5}},
				// Cancel all (a zero goal id) cancels only the goal still running.
				{"preempt", []string{"--outcome", "hold", "--feedback", "1"}, []string{"--gap", "0.3", "--cancel-goal", "all"}, []string{goalA, goalB},
					[]string{"goal", "accepted", "feedback", "result 5", "get_result 5"}, ActionEvent{Status: 5}},
				{"forget", []string{"--feedback", "0", "--result-timeout", "0.2"}, []string{"--result-delay", "1"}, []string{goalA},
					[]string{"goal", "accepted", "result 4", "forgotten", "get_result 0"}, ActionEvent{Status: 0}},
			} {
				t.Run(fmt.Sprintf("%s %s %s", d, v.name, tc.name), func(t *testing.T) {
					SkipMissing(t, v.bin)
					if v.name == "fastdds3" && d != msgs.Jazzy {
						// One source plays the script on both Fast DDS versions;
						// test/ros2rpc drives Fast DDS 3 on every distro.
						t.Skip("Fast DDS 3's script is played on Jazzy only")
					}
					srv, cli := runAction(t, p, v.bin, tc.server, tc.goals, tc.client...)
					last := tc.goals[len(tc.goals)-1]
					if got := events(srv, last); !slices.Equal(got, tc.serverEvents) {
						t.Errorf("server events of the goal %v, want %v", got, tc.serverEvents)
					}
					if tc.name == "reject" {
						if got := events(cli, last); !slices.Equal(got, []string{"sent"}) || cli[0].Accepted {
							t.Errorf("client saw %+v, want one refused send", cli)
						}
						return
					}
					if r := lastResult(t, cli, last); r.Status != tc.result.Status || r.ErrorCode != tc.result.ErrorCode {
						t.Errorf("client's result %+v, want status %d error_code %d", r, tc.result.Status, tc.result.ErrorCode)
					}
					if tc.name == "preempt" {
						want, why := 6, "preempted"
						if d == msgs.Humble {
							want, why = 5, "cancelled"
						}
						if r := lastResult(t, cli, goalA); r.Status != want || r.ErrorCode != -1 || !strings.Contains(r.ErrorString, why) {
							t.Errorf("%s: preempted goal ended %+v, want status %d, error_code -1 and %q", d, r, want, why)
						}
						i := slices.IndexFunc(cli, func(e ActionEvent) bool { return e.Event == "cancel" })
						if i < 0 || !slices.Equal(cli[i].Canceling, []string{goalB}) {
							t.Errorf("cancel all answered %v, want only %s canceling", cli, goalB)
						}
					}
				})
			}
		}
	}
}

// TestActionServerDiesOnAKnownGoalUUID: a goal UUID the server has seen
// before ends it loudly, as a real rclcpp server is brought down by one
// (rclcpp #3120); that is what proves a client never resends one.
func TestActionServerDiesOnAKnownGoalUUID(t *testing.T) {
	p := BuildNodes(t, msgs.Jazzy)
	eachVendor(t, p, func(t *testing.T, ctx context.Context, v vendor) {
		s, ns := startReady(ctx, t, func(ns string) *Proc {
			return p.StartActionServer(t, ns, v.bin, "/arm/follow_joint_trajectory", "--feedback", "0", "--result-timeout", "0.1")
		}, "ready")
		// The first goal is forgotten by the time the second comes:
		// the server still knows the UUID.
		StartActionClient(t, ns, v.bin, "/arm/follow_joint_trajectory", []string{goalA, goalA}, "--gap", "0.5", "--timeout", "3", "--no-result")
		err := s.Wait(ctx)
		if exitStatus(err) != DuplicateGoalExit || !strings.Contains(s.Stderr(), "DUPLICATE GOAL UUID "+goalA) {
			t.Fatalf("server ended with %v: %s", err, s.Stderr())
		}
	})
}

// TestActionServerTakesAGoalInFragments: a 3000-point goal (about 360 KB,
// many fragments) reaches each vendor's server whole.
func TestActionServerTakesAGoalInFragments(t *testing.T) {
	p := BuildNodes(t, msgs.Jazzy)
	for _, v := range nodeVendors(t, p) {
		t.Run(v.name, func(t *testing.T) {
			SkipMissing(t, v.bin)
			srv, _ := runAction(t, p, v.bin, []string{"--feedback", "0"}, []string{goalA}, "--points", "3000", "--joints", "a,b,c,d,e,f")
			i := slices.IndexFunc(srv, func(e ActionEvent) bool { return e.Event == "goal" })
			if i < 0 || srv[i].Points != 3000 || len(srv[i].Joints) != 6 {
				t.Fatalf("server got %+v", srv)
			}
		})
	}
}

// TestActionStatusReachesALateJoiner: the status topic is transient_local
// keep last 1, so a client that starts after a goal ended still gets the
// latest status list, and a scripted refusal of cancels answers REJECTED.
func TestActionStatusReachesALateJoinerAndCancelsCanBeRefused(t *testing.T) {
	p := BuildNodes(t, msgs.Jazzy)
	eachVendor(t, p, func(t *testing.T, ctx context.Context, v vendor) {
		srv, ns := startReady(ctx, t, func(ns string) *Proc {
			return p.StartActionServer(t, ns, v.bin, "/fjt", "--feedback", "1", "--outcome", "hold", "--cancel", "reject")
		}, "ready")
		first := StartActionClient(t, ns, v.bin, "/fjt", []string{goalA}, "--cancel-goal", goalA, "--no-result", "--timeout", "20")
		if err := first.Wait(ctx); err != nil {
			t.Fatalf("first client: %v: %s\nserver: %s", err, first.Stderr(), srv.Stderr())
		}
		evs := jsonLines[ActionEvent](t, first)
		i := slices.IndexFunc(evs, func(e ActionEvent) bool { return e.Event == "cancel" })
		if i < 0 || evs[i].ReturnCode != 1 || len(evs[i].Canceling) != 0 {
			t.Fatalf("a refused cancel answered %+v, want return_code 1 (REJECTED) and no goals", evs)
		}
		late := StartActionClient(t, ns, v.bin, "/fjt", nil, "--result-delay", "1", "--timeout", "20")
		if err := late.Wait(ctx); err != nil {
			t.Fatalf("late client: %v: %s", err, late.Stderr())
		}
		evs = jsonLines[ActionEvent](t, late)
		if len(evs) == 0 || evs[0].Event != "status" || len(evs[0].Goals) != 1 || evs[0].Goals[0] != (GoalStatus{goalA, 2}) {
			t.Fatalf("late joiner saw %+v, want the status list with %s executing", evs, goalA)
		}
	})
}
