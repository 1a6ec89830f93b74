package kinematics_test

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/actbridge/actbridge/kinematics"
)

// Targets (issue 36): one FK of a 6-joint chain ≤ 5 µs; IK p99 ≤ 5 ms from a
// seed 0.5 rad away. Benchmarks report them; no test asserts a time.

// BenchmarkFK is one FK of the sim arm's 6-joint chain (every link's frame)
// and the tool pose as a quaternion.
func BenchmarkFK(b *testing.B) {
	c := chain(b, simURDF, "base_link", "gripper_base_link")
	d := c.NewData()
	q := []float64{0.1, -0.2, 0.3, -0.4, 0.5, -0.6}
	b.ReportAllocs()
	for b.Loop() {
		if err := c.FK(d, q); err != nil {
			b.Fatal(err)
		}
		_ = d.ToolPose()
	}
}

// BenchmarkIK solves full poses of the sim arm, each from a seed 0.5 rad
// away on every joint, cycling over 200 reachable goals; it reports the
// p99 of single solves besides the mean.
func BenchmarkIK(b *testing.B) {
	for _, ch := range []struct{ name, path, base, tool string }{
		{"sim", simURDF, "base_link", "gripper_base_link"},
		{"ab6", ab6URDF, "base_link", "tool0"},
	} {
		b.Run(ch.name, func(b *testing.B) {
			c := chain(b, ch.path, ch.base, ch.tool)
			d := c.NewData()
			r := rand.New(rand.NewPCG(36, 5))
			type job struct {
				goal kinematics.Goal
				seed []float64
			}
			jobs := make([]job, 200)
			for i := range jobs {
				q := randomJoints(c, r)
				if err := c.FK(d, q); err != nil {
					b.Fatal(err)
				}
				jobs[i] = job{kinematics.Goal{Pose: d.ToolPose()}, seedNear(c, q, 0.5, i)}
			}
			var times []time.Duration
			failed, i := 0, 0
			b.ReportAllocs()
			for b.Loop() {
				j := jobs[i%len(jobs)]
				i++
				t0 := time.Now()
				if _, err := c.IK(d, j.goal, j.seed); err != nil {
					failed++
				}
				times = append(times, time.Since(t0))
			}
			slices.Sort(times)
			b.ReportMetric(float64(times[len(times)*99/100].Microseconds())/1000, "p99-ms")
			b.ReportMetric(float64(failed)/float64(len(times)), "failed/op")
		})
	}
}
