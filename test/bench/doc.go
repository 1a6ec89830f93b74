// Package bench measures what actbridge's safety costs, each number next to
// a floor measured in the same run: a bare bbolt commit plus a goroslib
// publish, a bare HTTP server, a bare /joint_states subscriber, a rospy
// actionlib client, the trajectory check alone.
//
// scripts/bench.sh (make bench) runs TestBenchTable at full size and prints
// one markdown table; TestBenchHarnessRunsTiny runs every measurement at a
// tiny size under make test and only checks that numbers come out. Nothing
// here asserts a time: a slow machine gives slow numbers, not failures.
//
// Floors that need a process of their own (the bare HTTP server, the bare
// subscriber) are this test binary re-executed (floorproc.go).
//
// The ros2 rows (ros2world.go) run the bridge over ROS 2 against
// `simrobot --ros 2` inside a network namespace, this binary re-executed
// there; a kernel-stamped packet tap (wiretap.go) sees the goal and the
// cancel leave, beside one RTPS write of the same size to a matched reader.
//
// To profile the bridge under a measurement without changing the tree,
// build it with a go build overlay that adds a file to cmd/actbridge
// importing net/http/pprof and serving http.DefaultServeMux on an address
// from the environment:
//
//	ACTBRIDGE_BENCH_BUILDFLAGS=-overlay=/tmp/prof/overlay.json ACTBRIDGE_PPROF_ADDR=127.0.0.1:6061 scripts/bench.sh
//
// then fetch http://127.0.0.1:6061/debug/pprof/profile while it runs.
//
// The stop rows (robot_stop under 50 readers; the same with 8 planners
// previewing, confirming and cancelling; POST /stop under the readers;
// ACTBRIDGE_BENCH_STOP_ROWS=readers,planners,http picks some, on both
// transports) report the bridge's CPU share over their loop and how long
// its threads waited for a CPU (schedstat). With
// ACTBRIDGE_BENCH_PROFILE=<dir> the ROS 1 world's bridge runs with
// --pprof and each stop row writes there an execution trace of 5 s of its
// loop (<row>.trace; the stop lane is the region "robot_stop lane"), a CPU
// profile of 30 s (<row>.pprof) and each stop's call and cancel times,
// Unix ns (<row>.times), to place each stop in the trace;
// ACTBRIDGE_BENCH_ROS2_PROFILE does the same for the ros2 rows.
package bench
