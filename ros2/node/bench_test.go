package node_test

import (
	"context"
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/actbridge/actbridge/msgs/ros2"
	"github.com/actbridge/actbridge/ros2/graph"
	"github.com/actbridge/actbridge/ros2/node"
	"github.com/actbridge/actbridge/ros2/qos"
)

// cpuTime is the CPU time this process used so far, user and system.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkJointStates1kHz publishes a 7-joint JointState every
// millisecond (one op) from one Context to another over loopback, and
// reports the CPU both sides cost as a fraction of one core
// ("cores"): a LatestOnly subscription read at 50 Hz against one that
// takes and decodes every sample.
func BenchmarkJointStates1kHz(b *testing.B) {
	for i, c := range []struct {
		name   string
		latest bool
		every  time.Duration
	}{{"latest-only read at 50Hz", true, 20 * time.Millisecond}, {"every sample", false, 0}} {
		b.Run(c.name, func(b *testing.B) {
			ctx, cancel := context.WithCancel(b.Context())
			defer cancel()
			pc, err := node.NewContext(ctx, node.Options{Distro: msgs.Jazzy, Discovery: node.Discovery{Domain: 80 + i}})
			if err != nil {
				b.Fatal(err)
			}
			defer pc.Close()
			sc, err := node.NewContext(ctx, node.Options{Distro: msgs.Jazzy, Discovery: node.Discovery{Domain: 80 + i}})
			if err != nil {
				b.Fatal(err)
			}
			defer sc.Close()
			pn, _ := pc.NewNode("robot_state", "")
			sn, _ := sc.NewNode("bridge", "")
			pub, err := pn.NewPublisher("joint_states", jointState, qos.Default)
			if err != nil {
				b.Fatal(err)
			}
			sub, err := sn.NewSubscription("joint_states", jointState, qos.Default, node.SubscriptionOptions{LatestOnly: c.latest})
			if err != nil {
				b.Fatal(err)
			}
			if err := pub.WaitMatched(ctx, 1); err != nil {
				b.Fatal(err)
			}
			m := pub.New()
			m.Set("name", []string{"j1", "j2", "j3", "j4", "j5", "j6", "j7"})
			m.Set("position", make([]float64, 7))
			m.Set("velocity", make([]float64, 7))
			m.Set("effort", make([]float64, 7))
			taken := 0
			done := make(chan struct{})
			go func() {
				defer close(done)
				for {
					if _, _, err := sub.Take(ctx); err != nil {
						return
					}
					taken++
					if c.every > 0 {
						select {
						case <-ctx.Done():
							return
						case <-time.After(c.every):
						}
					}
				}
			}()
			tick := time.NewTicker(time.Millisecond)
			defer tick.Stop()
			b.ResetTimer()
			cpu0, wall0 := cpuTime(b), time.Now()
			for range b.N {
				<-tick.C
				if err := pub.Publish(m); err != nil {
					b.Fatal(err)
				}
			}
			cpu, wall := cpuTime(b)-cpu0, time.Since(wall0)
			b.StopTimer()
			cancel()
			<-done
			b.ReportMetric(cpu.Seconds()/wall.Seconds(), "cores")
			b.ReportMetric(float64(taken)/float64(b.N), "taken/op")
		})
	}
}

// BenchmarkGraph is Graph with nothing changing, as the ROS 2 transport
// calls it on every Actuators and confirm: another Context's node with 20
// publishers and 20 subscriptions in view. Every call built the graph
// anew before it was kept between changes.
func BenchmarkGraph(b *testing.B) {
	ctx, cancel := context.WithTimeout(b.Context(), 15*time.Second)
	defer cancel()
	var cs [2]*node.Context
	for i := range cs {
		c, err := node.NewContext(ctx, node.Options{Distro: msgs.Jazzy, Discovery: node.Discovery{Domain: 96}})
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close()
		cs[i] = c
	}
	n, err := cs[0].NewNode("robot", "")
	if err != nil {
		b.Fatal(err)
	}
	const topics = 20
	for i := range topics {
		name := fmt.Sprintf("t%d", i)
		if _, err := n.NewPublisher(name, jointState, qos.Default); err != nil {
			b.Fatal(err)
		}
		if _, err := n.NewSubscription(name+"_in", jointState, qos.Default, node.SubscriptionOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := cs[1].WaitGraph(ctx, func(g graph.Graph) bool { return len(g.Topics) >= 2*topics }); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		if len(cs[1].Graph().Topics) == 0 {
			b.Fatal("empty graph")
		}
	}
}
