package safety

import (
	"fmt"
	"math"
)

// FrameLink is a rigid motion of the ground plane: the origin (X, Y) and
// heading (Yaw, rad) of frame From in another frame, as TF gives it
// projected onto the ground. It carries base poses between frames, e.g.
// from odom, where odometry reports them, into map, where the fence is.
type FrameLink struct {
	From, To  string // it maps poses in From to poses in To
	X, Y, Yaw float64
}

// Apply maps a pose given in p.From into the other frame.
func (p FrameLink) Apply(q Pose2D) Pose2D {
	s, c := math.Sincos(p.Yaw)
	return Pose2D{
		X:     p.X + c*q.X - s*q.Y,
		Y:     p.Y + s*q.X + c*q.Y,
		Theta: math.Remainder(q.Theta+p.Yaw, 2*math.Pi),
	}
}

// InFence maps a pose given in frame into the fence's frame: as it is
// when frame is the fence's, through link when link carries frame's poses
// there (From is frame, To the fence's). Any other frame is an InputError (ErrUnknownFrame) naming the
// frames it could take, so a goal is never checked against a fence in a
// frame it is not in.
func (b *Base) InFence(frame string, p Pose2D, link *FrameLink) (Pose2D, error) {
	if b == nil {
		return Pose2D{}, fmt.Errorf("base: not configured: %w", ErrInvalidConfig)
	}
	for _, v := range []struct {
		f string
		v float64
	}{{"x", p.X}, {"y", p.Y}, {"theta", p.Theta}} {
		if err := checkValue(v.v, v.f, ""); err != nil {
			return Pose2D{}, err
		}
	}
	fence := b.cfg.Geofence.Frame
	switch f := normalizeFrame(frame); {
	case f == fence:
		return p, nil
	case link != nil && normalizeFrame(link.From) == f && normalizeFrame(link.To) == fence:
		for _, v := range []float64{link.X, link.Y, link.Yaw} {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return Pose2D{}, &InputError{Field: "frame", Expected: "a finite transform from " + quoteName(f) + " to " + quoteName(fence), Actual: "not finite", Err: ErrUnknownFrame}
			}
		}
		return link.Apply(p), nil
	}
	expected := quoteName(fence)
	if link != nil {
		expected += " or " + quoteName(normalizeFrame(link.From))
	}
	return Pose2D{}, &InputError{Field: "frame", Expected: expected, Actual: quoteName(frame), Err: ErrUnknownFrame}
}

// Inverse returns the link that maps poses back from To into From.
func (p FrameLink) Inverse() FrameLink {
	s, c := math.Sincos(p.Yaw)
	return FrameLink{From: p.To, To: p.From, X: -(c*p.X + s*p.Y), Y: s*p.X - c*p.Y, Yaw: -p.Yaw}
}
