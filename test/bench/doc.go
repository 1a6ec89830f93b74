// Package bench measures what actbridge's safety costs, each number next to
// a floor measured in the same run: a bare bbolt commit plus a goroslib
// publish, a bare HTTP round trip, a bare /joint_states subscriber, a rospy
// actionlib client, the trajectory check alone.
//
// scripts/bench.sh (make bench) runs TestBenchTable at full size and prints
// one markdown table; TestBenchHarnessRunsTiny runs every measurement at a
// tiny size under make test and only checks that numbers come out. Nothing
// here asserts a time: a slow machine gives slow numbers, not failures.
package bench
