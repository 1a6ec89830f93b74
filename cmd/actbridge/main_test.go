package main

import (
	"testing"

	"github.com/actbridge/actbridge/test/netns"
)

// TestMain runs the package's tests inside a network namespace of their
// own: the ROS 2 commands' localhost discovery multicasts SPDP with TTL 0
// on every interface (it stays on the host, but not on loopback).
func TestMain(m *testing.M) { netns.Main(m) }
