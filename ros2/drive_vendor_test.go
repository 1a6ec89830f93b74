package ros2

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/cdr"
	"github.com/actbridge/actbridge/config"
	"github.com/actbridge/actbridge/msgs/ros2"
	"github.com/actbridge/actbridge/test/ddspeers"
	"github.com/actbridge/actbridge/test/netns"
)

// arrival is one sample a vendor subscriber printed, and when.
type arrival struct {
	msg *cdr.Message
	at  time.Time
}

// collect reads sub's samples of s as they arrive until stop is closed
// and half a second has passed.
func collect(t *testing.T, sub *ddspeers.Proc, s *cdr.Struct, stop <-chan struct{}) []arrival {
	t.Helper()
	var out []arrival
	var stopAt <-chan time.Time
	seen := 0
	for {
		select {
		case <-stop:
			stop, stopAt = nil, time.After(500*time.Millisecond)
		case <-stopAt:
			return out
		case <-time.After(2 * time.Millisecond):
		}
		raw := sub.Stdout()
		end := bytes.LastIndexByte(raw, '\n') + 1
		lines, err := ddspeers.HexLines(raw[:end])
		if err != nil {
			t.Fatal(err)
		}
		now := time.Now()
		for _, b := range lines[seen:] {
			m, err := cdr.Decode(s, b)
			if err != nil {
				t.Fatalf("sample %d: %v", len(out), err)
			}
			out = append(out, arrival{m, now})
		}
		seen = len(lines)
	}
}

// twistOf reads the vectors of a Twist, or of a TwistStamped's twist
// with its header.
func twistOf(m *cdr.Message) (lin, ang [3]float64, header *cdr.Message) {
	t := m
	if h, ok := m.Get("header").(*cdr.Message); ok {
		header, t = h, m.Get("twist").(*cdr.Message)
	}
	vec := func(name string) (v [3]float64) {
		m := t.Get(name).(*cdr.Message)
		for i, k := range []string{"x", "y", "z"} {
			v[i] = m.Get(k).(float64)
		}
		return v
	}
	return vec("linear"), vec("angular"), header
}

// basePeers are the vendors' peers that know a base's types (Jazzy's,
// the same on Humble): the build of every distro's types, made once.
func basePeers(t *testing.T) (*ddspeers.Peers, *msgs.Set) {
	t.Helper()
	set, err := msgs.Load(msgs.Jazzy)
	if err != nil {
		t.Fatal(err)
	}
	return ddspeers.BuildDistroTypes(t, msgs.Jazzy, twistStampedType, twistType, odometryType), set
}

// TestDriveOnTheWireReachesEachVendorAtTheRateThenZero: a CycloneDDS and
// a Fast DDS subscriber on diff_drive_controller's topic receive our
// drive as the vendor decodes it: TwistStamped with a zero stamp and no
// frame (the robot's clock applies), the twist given, drive_rate_hz
// samples a second for the drive's duration, then zeros and nothing
// else; on Humble with cmd_vel_stamped false, the same as Twist on
// ~/cmd_vel_unstamped.
func TestDriveOnTheWireReachesEachVendorAtTheRateThenZero(t *testing.T) {
	ns := netns.Require(t)
	p, set := basePeers(t)
	unstamped := false
	for i, tc := range []struct {
		name, bin, distro, typ, topic string
		stamped                       *bool
	}{
		{"cyclonedds", p.Cyclone, "jazzy", twistStampedType, "/diff_drive_controller/cmd_vel", nil},
		{"fastdds", p.Fast, "jazzy", twistStampedType, "/diff_drive_controller/cmd_vel", nil},
		{"fastdds3", p.Fast3(t), "jazzy", twistStampedType, "/diff_drive_controller/cmd_vel", nil},
		{"cyclonedds humble unstamped", p.Cyclone, "humble", twistType, "/diff_drive_controller/cmd_vel_unstamped", &unstamped},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ddspeers.SkipMissing(t, tc.bin)
			domain := 111 + i
			ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
			defer cancel()
			sub := ddspeers.StartPeer(t, ns, tc.bin, nil, "sub", "--type", tc.typ, "--topic", "rt"+tc.topic,
				"--domain", fmt.Sprint(domain), "--timeout", "30")
			r := openRobot(t, baseConfig(domain, tc.distro, config.ActuatorConfig{CmdVelTopic: tc.topic, CmdVelStamped: tc.stamped}))
			feed := newGoalFeed(r)
			if err := sub.WaitStderr(ctx, "matched"); err != nil {
				t.Fatalf("%v: %s", err, sub.Stderr())
			}
			id := uuid.NewString()
			drive := actuators.Drive{Linear: 0.25, Angular: -0.5, Duration: time.Second}
			done := make(chan struct{})
			go func() {
				defer close(done)
				if err := r.Send(ctx, "base", id, drive); err != nil {
					t.Error(err)
					return
				}
				for _, want := range []actuators.GoalState{actuators.GoalActive, actuators.GoalSucceeded} {
					if u, ok := feed.wait(id, 10*time.Second); u.State != want {
						t.Errorf("update %+v (%v), want %s", u, ok, want)
						return
					}
				}
			}()
			s, _ := set.Struct(tc.typ)
			got := collect(t, sub, s, done)

			var driving []time.Time
			zeros := 0
			for k, a := range got {
				lin, ang, h := twistOf(a.msg)
				if h != nil {
					stamp := h.Get("stamp").(*cdr.Message)
					if stamp.Get("sec").(int32) != 0 || stamp.Get("nanosec").(uint32) != 0 || h.Get("frame_id").(string) != "" {
						t.Fatalf("sample %d has a header %s, want a zero stamp and no frame", k, h.AppendJSON(nil))
					}
				}
				switch {
				case lin == [3]float64{drive.Linear, 0, 0} && ang == [3]float64{0, 0, drive.Angular} && zeros == 0:
					driving = append(driving, a.at)
				case lin == [3]float64{} && ang == [3]float64{} && len(driving) > 0:
					zeros++
				default:
					t.Fatalf("sample %d: %s after %d driving and %d zero samples", k, a.msg.AppendJSON(nil), len(driving), zeros)
				}
			}
			t.Logf("%d samples: %d driving, %d zero", len(got), len(driving), zeros)
			// 20 Hz for 1 s: the first at once, then one every 50 ms.
			if n := len(driving); n < 16 || n > 22 {
				t.Errorf("%d driving samples in the drive's second, want about 21 at 20 Hz", n)
			}
			if zeros < zeroRepeats {
				t.Errorf("%d zero samples after the drive, want %d", zeros, zeroRepeats)
			}
			var gaps []time.Duration
			for k := 1; k < len(driving); k++ {
				gaps = append(gaps, driving[k].Sub(driving[k-1]))
			}
			slices.Sort(gaps)
			if len(gaps) > 0 {
				med := gaps[len(gaps)/2]
				t.Logf("gaps between driving samples: median %s, least %s, most %s", med, gaps[0], gaps[len(gaps)-1])
				if med < 35*time.Millisecond || med > 70*time.Millisecond {
					t.Errorf("median gap between samples %s, want about 50 ms (20 Hz)", med)
				}
			}
		})
	}
}

// TestCloseZeroTwistsReachTheSubscriber: Close publishes zero twists to
// the subscribers matched then (and waits, bounded, for their
// acknowledgement, so a lost datagram is repaired before the participant
// goes): a matched CycloneDDS subscriber of cmd_vel receives one on every
// close.
func TestCloseZeroTwistsReachTheSubscriber(t *testing.T) {
	ns := netns.Require(t)
	p, set := basePeers(t)
	s, _ := set.Struct(twistStampedType)
	for i := range 5 {
		domain := 219
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		sub := ddspeers.StartPeer(t, ns, p.Cyclone, nil, "sub", "--type", twistStampedType, "--topic", "rt/diff_drive_controller/cmd_vel",
			"--domain", fmt.Sprint(domain), "--timeout", "30")
		r := openRobot(t, baseConfig(domain, "jazzy", config.ActuatorConfig{CmdVelTopic: "/diff_drive_controller/cmd_vel"}))
		if err := sub.WaitStderr(ctx, "matched"); err != nil {
			cancel()
			t.Fatalf("%v: %s", err, sub.Stderr())
		}
		for len(r.Actuators()) == 0 || !r.Actuators()[0].Connected { // our writer has matched it too
			if ctx.Err() != nil {
				t.Fatal("the robot never matched the subscriber")
			}
			time.Sleep(10 * time.Millisecond)
		}
		if err := r.Close(); err != nil {
			t.Fatal(err)
		}
		done := make(chan struct{})
		close(done)
		got := collect(t, sub, s, done)
		cancel()
		zeros := 0
		for _, a := range got {
			if lin, ang, _ := twistOf(a.msg); lin == [3]float64{} && ang == [3]float64{} {
				zeros++
			}
		}
		if zeros == 0 {
			t.Fatalf("close %d: no zero twist reached the subscriber (%d samples)", i, len(got))
		}
		sub.Kill()
	}
}
