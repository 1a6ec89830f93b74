package rtps_test

import (
	"context"
	"fmt"
	"time"

	"github.com/actbridge/actbridge/rtps"
)

// Two participants on localhost-only discovery (unicast SPDP to
// 127.0.0.1) find each other; each sees the other's vendor id.
func ExampleParticipant() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	a, err := rtps.NewParticipant(ctx, rtps.Config{Domain: 11})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer a.Close()
	b, err := rtps.NewParticipant(ctx, rtps.Config{Domain: 11})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer b.Close()
	peers, err := a.WaitParticipants(ctx, func(ps []rtps.ParticipantData) bool { return len(ps) > 0 })
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(peers[0].Prefix == b.GUID().Prefix, peers[0].Vendor)
	// Output: true 01.ab
}

// A writer announced by one participant is learned over SEDP by another,
// whose reader of the same topic and type it matches.
func ExampleParticipant_AddEndpoint() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	a, err := rtps.NewParticipant(ctx, rtps.Config{Domain: 16})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer a.Close()
	b, err := rtps.NewParticipant(ctx, rtps.Config{Domain: 16})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer b.Close()
	a.AddEndpoint(rtps.EndpointData{Writer: true, Topic: "rt/chatter", Type: "std_msgs::msg::dds_::String_"})
	r, _ := b.AddEndpoint(rtps.EndpointData{Topic: "rt/chatter", Type: "std_msgs::msg::dds_::String_"})
	es, err := b.WaitEndpoints(ctx, func(es []rtps.EndpointData) bool { return len(es) == 1 })
	if err != nil {
		fmt.Println(err)
		return
	}
	m, _ := b.Matched(r)
	fmt.Println(es[0].Topic, es[0].QoS.Reliability == rtps.Reliable, len(m))
	// Output: rt/chatter true 1
}
