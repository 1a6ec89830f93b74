// Package test holds end-to-end tests against real processes (rosmaster,
// simrobot, actbridge, Prometheus) and the benchmarks.
package test
