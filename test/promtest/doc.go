// Package promtest runs Debian's Prometheus for tests (temporary config and
// TSDB on a free loopback port, stopped by pid) and checks that PromQL in
// dashboards and rules names only metrics an exporter really has.
package promtest
