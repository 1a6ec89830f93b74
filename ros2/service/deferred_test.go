package service

import (
	"context"
	"testing"
	"time"

	"github.com/actbridge/actbridge/cdr"
	"github.com/actbridge/actbridge/ros2/service/servicetest"
	"github.com/actbridge/actbridge/test/netns"
)

// TestDeferredRepliesReachTheirCallsInAnyOrder: a deferred server holds
// the first request it takes, answers the second, then the first; each
// call gets its own reply in both dialects.
func TestDeferredRepliesReachTheirCallsInAnyOrder(t *testing.T) {
	netns.Require(t)
	ty := triggerTypes(t)
	for i, d := range []Dialect{Cyclone, FastDDS} {
		t.Run(d.String(), func(t *testing.T) {
			ps, pc := servicetest.Participant(t, 57+i), servicetest.Participant(t, 57+i)
			answer := func(reply Replier, msg string) {
				rep := cdr.Zero(ty.Response)
				rep.Set("message", msg)
				if err := reply(rep); err != nil {
					t.Error(err)
				}
			}
			var held Replier
			srv, err := NewDeferredServer(ps, ty, "/deferred", func(_ context.Context, _ *cdr.Message, reply Replier) {
				if held == nil {
					held = reply // requests are taken one at a time: no lock
					return
				}
				answer(reply, "second")
				answer(held, "first")
			}, Options{Dialect: d})
			if err != nil {
				t.Fatal(err)
			}
			defer srv.Close()
			got := make(chan string, 2)
			for range 2 {
				c, err := NewClient(pc, ty, "/deferred", Options{Dialect: d})
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				go func() {
					rep, err := c.Call(servicetest.Timeout(t, 10*time.Second), cdr.Zero(ty.Request))
					if err != nil {
						got <- err.Error()
						return
					}
					got <- rep.Get("message").(string)
				}()
			}
			// The held request was answered after a later one: each
			// call still got its own reply, none both.
			if a, b := <-got, <-got; a == b || a != "first" && a != "second" || b != "first" && b != "second" {
				t.Fatalf("replies %q and %q; want first and second, one each", a, b)
			}
		})
	}
}
