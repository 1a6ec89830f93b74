package sim

import "time"

// maxRecords bounds each action's goal and cancel history; counters keep
// counting past it.
const maxRecords = 10000

// GoalRecord is one goal message as it reached the robot.
type GoalRecord struct {
	ID string `json:"id"`
	// AssignedID is the id the server made up for a goal sent without one.
	AssignedID string    `json:"assigned_id,omitempty"`
	Stamp      time.Time `json:"stamp"`
	Received   time.Time `json:"received"` // wall clock
	SimTime    time.Time `json:"sim_time"`
	// Duplicate: the id was already known, so nothing was started.
	Duplicate bool `json:"duplicate"`
	// Ignored: dropped by the ignore_goals fault; no status was ever sent.
	Ignored bool `json:"ignored"`
	// State is the goal's current actionlib state ("SUCCEEDED"); empty for
	// duplicates and ignored goals.
	State string `json:"state,omitempty"`
	// Trajectory is an arm goal's trajectory as received, kept for the
	// newest keepTrajectories goals of the action: what a test compares
	// with what the bridge previewed.
	Trajectory *LoggedTrajectory `json:"trajectory,omitempty"`

	tr interface{ state() (uint8, bool) }
}

// LoggedTrajectory is a trajectory in the goal log: joint names and
// points, times in seconds.
type LoggedTrajectory struct {
	Joints []string      `json:"joints"`
	Points []LoggedPoint `json:"points"`
}

// LoggedPoint is one point of a LoggedTrajectory.
type LoggedPoint struct {
	Positions     []float64 `json:"positions"`
	Velocities    []float64 `json:"velocities,omitempty"`
	Accelerations []float64 `json:"accelerations,omitempty"`
	Time          float64   `json:"time_s"`
}

// keepTrajectories bounds the trajectories the log holds per action.
const keepTrajectories = 64

// CancelRecord is one cancel message as it reached the robot.
type CancelRecord struct {
	ID       string    `json:"id"`
	Stamp    time.Time `json:"stamp"`
	Received time.Time `json:"received"`
	SimTime  time.Time `json:"sim_time"`
}

// ActionGoals is everything one action server received.
type ActionGoals struct {
	NS         string         `json:"ns"`
	Received   int            `json:"received"`   // goal messages, duplicates included
	Duplicates int            `json:"duplicates"` // goal messages with a known id
	Ignored    int            `json:"ignored"`
	Cancels    int            `json:"cancels"`
	Goals      []GoalRecord   `json:"goals"`
	CancelLog  []CancelRecord `json:"cancel_log"`
}

// Count returns how many goal messages carried id (duplicates included).
func (a ActionGoals) Count(id string) int {
	n := 0
	for _, g := range a.Goals {
		if g.ID == id {
			n++
		}
	}
	return n
}

// GoalLog is what every action server received, keyed by the action's short
// name: "arm", "gripper", "move_base".
type GoalLog map[string]ActionGoals

// actionLog records one action's goals and cancels.
type actionLog struct {
	a ActionGoals
}

func newActionLog(ns string) *actionLog {
	return &actionLog{a: ActionGoals{NS: ns, Goals: []GoalRecord{}, CancelLog: []CancelRecord{}}}
}

// goal appends a record and returns it so the server can mark it.
func (l *actionLog) goal(id GoalID, sim, wall time.Time) *GoalRecord {
	if len(l.a.Goals) >= maxRecords {
		l.a.Goals = append(l.a.Goals[:0], l.a.Goals[1:]...)
	}
	l.a.Goals = append(l.a.Goals, GoalRecord{ID: id.ID, Stamp: id.Stamp, Received: wall, SimTime: sim})
	l.a.Received++
	if n := len(l.a.Goals) - 1 - keepTrajectories; n >= 0 {
		l.a.Goals[n].Trajectory = nil
	}
	return &l.a.Goals[len(l.a.Goals)-1]
}

func (l *actionLog) cancel(id GoalID, sim, wall time.Time) {
	if len(l.a.CancelLog) >= maxRecords {
		l.a.CancelLog = append(l.a.CancelLog[:0], l.a.CancelLog[1:]...)
	}
	l.a.CancelLog = append(l.a.CancelLog, CancelRecord{ID: id.ID, Stamp: id.Stamp, Received: wall, SimTime: sim})
	l.a.Cancels++
}

// logTrajectory is tr as the goal log keeps it.
func logTrajectory(tr Trajectory) *LoggedTrajectory {
	out := &LoggedTrajectory{Joints: append([]string(nil), tr.JointNames...), Points: make([]LoggedPoint, len(tr.Points))}
	for i, p := range tr.Points {
		out.Points[i] = LoggedPoint{Positions: append([]float64(nil), p.Positions...), Velocities: append([]float64(nil), p.Velocities...),
			Accelerations: append([]float64(nil), p.Accelerations...), Time: p.TimeFromStart.Seconds()}
	}
	return out
}

// snapshot copies the log with current states filled in.
func (l *actionLog) snapshot() ActionGoals {
	out := l.a
	out.Goals = make([]GoalRecord, len(l.a.Goals))
	for i, g := range l.a.Goals {
		if g.tr != nil {
			if st, ok := g.tr.state(); ok {
				g.State = StatusName(st)
			}
		}
		g.tr = nil
		out.Goals[i] = g
	}
	out.CancelLog = append([]CancelRecord{}, l.a.CancelLog...)
	return out
}
