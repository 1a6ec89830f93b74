package main

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

	"github.com/actbridge/actbridge/actuators/actuatorsfake"
	"github.com/actbridge/actbridge/bridge"
	"github.com/actbridge/actbridge/config"
	"github.com/actbridge/actbridge/safety"
	"github.com/actbridge/actbridge/tf"
)

// tfRobot is the fake robot with a TF reader that publishes map→odom once
// and records the pins it was given.
type tfRobot struct {
	*actuatorsfake.Robot
	pins    map[string]string
	watched chan struct{}
}

func (r *tfRobot) WatchTF(ctx context.Context, buf *tf.Buffer, pins map[string]string, _ func(error)) error {
	r.pins = pins
	tr := tf.Identity
	tr.Translation[0] = 1.5
	if err := buf.Add(tf.Stamped{Parent: "map", Child: "odom", Stamp: time.Now(), Transform: tr}, false, "/ekf", time.Now()); err != nil {
		return err
	}
	close(r.watched)
	<-ctx.Done()
	return nil
}

func fencedModel(t *testing.T, frame string) *robotModel {
	t.Helper()
	b, err := safety.NewBase(safety.BaseConfig{MaxLinearSpeed: 1, MaxAngularSpeed: 1, Geofence: safety.Fence{Frame: frame, MinX: -1, MaxX: 1, MinY: -1, MaxY: 1}})
	if err != nil {
		t.Fatal(err)
	}
	return &robotModel{cfg: &config.Config{TFSources: map[string]string{"/odom": "/ekf"}},
		bases: []*bridge.BaseModel{{Name: "base", Frame: "odom", Guard: bridge.SafetyBase{Base: b}}}}
}

// TF is read only for a base fenced outside its odometry's frame; then
// the transport's reader feeds the base's frames, with the config's pins,
// and a transport without one is refused at start.
func TestTFIsReadOnlyForABaseFencedInAnotherFrame(t *testing.T) {
	var log bytes.Buffer
	m := fencedModel(t, "odom")
	stop, err := watchFrames(t.Context(), m, actuatorsfake.New(actuatorsfake.Options{}), &log)
	if err != nil || m.bases[0].Frames != nil {
		t.Fatalf("fenced in odom: %v, frames %v; want no TF", err, m.bases[0].Frames)
	}
	stop()

	if _, err := watchFrames(t.Context(), fencedModel(t, "map"), actuatorsfake.New(actuatorsfake.Options{}), &log); err == nil {
		t.Fatal("a map fence over a transport without /tf was accepted")
	}

	m = fencedModel(t, "map")
	r := &tfRobot{Robot: actuatorsfake.New(actuatorsfake.Options{}), watched: make(chan struct{})}
	stop, err = watchFrames(t.Context(), m, r, &log)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	<-r.watched
	if r.pins["odom"] != "/ekf" {
		t.Fatalf("pins %v, want odom pinned to /ekf", r.pins)
	}
	tr, _, err := m.bases[0].Frames.Transform("map", "odom", time.Second)
	if err != nil || tr.Translation[0] != 1.5 {
		t.Fatalf("map←odom %v %v, want the watched transform", tr, err)
	}
	if _, _, err := m.bases[0].Frames.Transform("map", "odom", time.Nanosecond); !errors.Is(err, tf.ErrStale) {
		t.Fatalf("with a 1 ns max age: %v, want tf.ErrStale", err)
	}
}
