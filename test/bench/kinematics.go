package bench

import (
	"fmt"
	"time"
)

// MeasureKinematics runs package kinematics' benchmarks in their own
// process: BenchmarkFK (one FK of the sim arm's 6-joint chain, every link)
// and BenchmarkIK (full-pose IK of the sim arm and of the UR5-style ab6,
// each solve seeded 0.5 rad away on every joint; p99 over `solves`). Issue
// 36's targets: FK ≤ 5 µs, IK p99 ≤ 5 ms. Pure computation: the targets are
// absolute, there is no floor to hold them against.
func MeasureKinematics(e *Env, solves int) Row {
	tb := e.TB
	all, err := goBench(e, "./kinematics", "^Benchmark(FK|IK)$", fmt.Sprintf("%dx", solves), 10*time.Minute)
	if err != nil {
		tb.Fatal(err)
	}
	fk, sim, ab6 := all["BenchmarkFK"], all["BenchmarkIK/sim"], all["BenchmarkIK/ab6"]
	if fk == nil || sim == nil || ab6 == nil {
		tb.Fatalf("kinematics benchmarks missing in %v", all)
	}
	fkUs := fk["ns/op"] / 1000
	return Row{
		Key:  "kinematics",
		What: fmt.Sprintf("kinematics (issue 36): one FK of the sim arm's 6-joint chain; IK of full poses from a seed 0.5 rad away on every joint (%d solves)", solves),
		Result: fmt.Sprintf("FK %.2f µs (%.0f allocs) · IK sim arm p99 %.2f ms (mean %.3f ms, %.0f%% unsolved) · IK ab6 p99 %.2f ms (mean %.3f ms, %.0f%% unsolved)",
			fkUs, fk["allocs/op"], sim["p99-ms"], sim["ns/op"]/1e6, 100*sim["failed/op"], ab6["p99-ms"], ab6["ns/op"]/1e6, 100*ab6["failed/op"]),
		Floor:  "– (pure computation)",
		Ratio:  "–",
		Target: "FK ≤ 5 µs; IK p99 ≤ 5 ms",
		Met:    yes(fkUs <= 5 && sim["p99-ms"] <= 5 && ab6["p99-ms"] <= 5),
		Values: map[string]float64{"fk_us": fkUs, "ik_sim_p99_ms": sim["p99-ms"], "ik_ab6_p99_ms": ab6["p99-ms"]},
	}
}

// MeasureWorkspace runs package safety's BenchmarkWorkspace7Joints1000Points
// in its own process: the workspace check (a tool box, a table under every
// moving link, a tool speed cap) of a 7-joint, 1,000-point trajectory, on
// top of the joint-limit check the preview already does. Issue 36's
// target: ≤ 1 ms on top of today's preview computation.
func MeasureWorkspace(e *Env, checks int) Row {
	tb := e.TB
	all, err := goBench(e, "./safety", "^BenchmarkWorkspace7Joints1000Points$", fmt.Sprintf("%dx", checks), 10*time.Minute)
	if err != nil {
		tb.Fatal(err)
	}
	r := all["BenchmarkWorkspace7Joints1000Points"]
	if r == nil {
		tb.Fatalf("workspace benchmark missing in %v", all)
	}
	wsMs, jointsMs := r["workspace-us/op"]/1000, r["joints-us/op"]/1000
	return Row{
		Key:  "workspace",
		What: fmt.Sprintf("workspace check (issue 36): a 7-joint (FR3), 1,000-point trajectory against a tool box, a table under every moving link and a tool speed cap, on top of its joint-limit check (%d checks)", checks),
		Result: fmt.Sprintf("%.3f ms on top of the joint check's %.3f ms (%.0f FK samples, every path point within %.0f mm of one)",
			wsMs, jointsMs, r["samples"], 5.0),
		Floor:  "– (pure computation)",
		Ratio:  "–",
		Target: "≤ 1 ms on top",
		Met:    yes(wsMs <= 1),
		Values: map[string]float64{"workspace_ms": wsMs, "joints_ms": jointsMs, "samples": r["samples"]},
	}
}
