package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/bridge"
	"github.com/actbridge/actbridge/tf"
)

// tfWatcher is a transport that reads the config's TF topics (/tf and
// /tf_static by default) into a buffer (ros1.Robot, ros2.Robot).
type tfWatcher interface {
	WatchTF(ctx context.Context, buf *tf.Buffer, pins map[string]string, bad func(error)) error
}

// tfFrames answers actuators.Frames from a buffer a transport feeds.
type tfFrames struct {
	buf *tf.Buffer
	now func() time.Time
}

// Transform is source's pose in target at the newest common time, refused
// when older than maxAge (tf.Buffer.Latest).
func (f tfFrames) Transform(target, source string, maxAge time.Duration) (tf.Transform, time.Time, error) {
	return f.buf.Latest(target, source, f.now(), maxAge)
}

var _ actuators.Frames = tfFrames{}

// maxTFLogged bounds how many refused transforms are written to the log.
const maxTFLogged = 10

// watchFrames reads TF while ctx lives when a base is fenced outside its
// odometry's frame or an arm takes pose goals (and the transport reads
// /tf), and gives those bases and arms the frames; a robot that needs none
// reads no TF. stop ends the watch and waits for it.
func watchFrames(ctx context.Context, m *robotModel, robot actuators.Robot, logw io.Writer) (stop func(), err error) {
	var need []string
	for _, b := range m.bases {
		if strings.TrimLeft(b.Guard.FenceFrame(), "/") != strings.TrimLeft(b.Frame, "/") {
			need = append(need, b.Name)
		}
	}
	// Arms with a kinematic chain take pose goals in frames /tf places
	// (arm_move_pose) where the transport reads it; they never require it.
	var arms []*bridge.ArmModel
	for _, a := range m.arms {
		if k, ok := a.Guard.(bridge.KinematicArm); ok {
			if c, _ := k.KinematicChain(); c != nil {
				arms = append(arms, a)
			}
		}
	}
	w, ok := robot.(tfWatcher)
	switch {
	case len(need) > 0 && !ok:
		return nil, fmt.Errorf("bases %s are fenced in another frame than their odometry, but this transport reads no /tf", strings.Join(need, ", "))
	case len(need) == 0 && (len(arms) == 0 || !ok):
		return func() {}, nil
	}
	pins := map[string]string{}
	for child, node := range m.cfg.TFSources {
		pins[strings.TrimLeft(child, "/")] = node
	}
	// The transports apply the pins by node name; the buffer names
	// publishers by what the wire carries (a ROS 2 participant), so it
	// gets none.
	buf := tf.NewBuffer(tf.Options{})
	frames := tfFrames{buf: buf, now: time.Now}
	for _, b := range m.bases {
		if slices.Contains(need, b.Name) {
			b.Frames = frames
		}
	}
	for _, a := range arms {
		a.Frames = frames
	}
	var refused atomic.Uint64
	bad := func(err error) {
		switch n := refused.Add(1); {
		case n <= maxTFLogged:
			fmt.Fprintf(logw, "actbridge: tf: %v\n", err)
		case n == maxTFLogged+1:
			fmt.Fprintf(logw, "actbridge: tf: more transforms refused; no longer logged\n")
		}
	}
	wctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := w.WatchTF(wctx, buf, pins, bad); err != nil && wctx.Err() == nil {
			fmt.Fprintf(logw, "actbridge: the TF watch (%s, %s) stopped: %v; motions that need a transform are refused as the transforms age\n",
				m.cfg.TFTopic, m.cfg.TFStaticTopic, err)
		}
	}()
	return func() { cancel(); <-done }, nil
}
