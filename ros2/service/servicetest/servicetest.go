// Package servicetest holds what the tests of the ROS 2 service, action
// and parameter packages share: participants on a short lease, inside the
// test's network namespace, and deadlines tied to the test.
package servicetest

import (
	"context"
	"testing"
	"time"

	"github.com/actbridge/actbridge/rtps"
)

// Lease is the lease the participants announce: a peer that vanishes
// without goodbye is dropped this long after.
const Lease = 2 * time.Second

// Participant is a multicast participant of domain, closed at the end of
// t. Call it only inside a namespace (netns.Require).
func Participant(t testing.TB, domain int) *rtps.Participant {
	t.Helper()
	p, err := rtps.NewParticipant(t.Context(), rtps.Config{Domain: domain, Multicast: true, LeaseDuration: Lease})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// Timeout is a context that ends after d or with t.
func Timeout(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), d)
	t.Cleanup(cancel)
	return ctx
}
