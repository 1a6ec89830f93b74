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

// A reliable writer and a reader of the same topic on two participants:
// the sample written is the sample taken, encapsulation header and all,
// with the time it was written (the writer's INFO_TS).
func ExampleParticipant_NewWriter() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	a, err := rtps.NewParticipant(ctx, rtps.Config{Domain: 25})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer a.Close()
	b, err := rtps.NewParticipant(ctx, rtps.Config{Domain: 25})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer b.Close()
	topic := rtps.EndpointData{Topic: "rt/chatter", Type: "std_msgs::msg::dds_::String_", QoS: rtps.QoS{Reliability: rtps.Reliable}}
	w, _ := a.NewWriter(topic)
	r, _ := b.NewReader(topic)
	// Ready: the reader has told the writer it knows it, so it takes
	// what is written from now on.
	if err := w.WaitReady(ctx, 1); err != nil {
		fmt.Println(err)
		return
	}
	// XCDR1 little endian: encapsulation, then the string "hi" (length 3 with its NUL).
	w.Write([]byte{0, 1, 0, 0, 3, 0, 0, 0, 'h', 'i', 0}, nil)
	s, err := r.Take(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%q %v %v\n", s.Payload[8:10], s.Writer == w.GUID(), time.Since(s.SourceTime) < time.Minute)
	// Output: "hi" true true
}

// An echo on a reader's listener: each ping is answered on the goroutine
// that received it, with no goroutine woken between the datagram and the
// answer, as a latency-bound peer (a pong) does.
func ExampleReader_Listen() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	a, err := rtps.NewParticipant(ctx, rtps.Config{Domain: 45})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer a.Close()
	b, err := rtps.NewParticipant(ctx, rtps.Config{Domain: 45})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer b.Close()
	qos := rtps.QoS{Reliability: rtps.Reliable}
	ping := rtps.EndpointData{Topic: "rt/ping", Type: "std_msgs::msg::dds_::String_", QoS: qos}
	pong := rtps.EndpointData{Topic: "rt/pong", Type: "std_msgs::msg::dds_::String_", QoS: qos}
	pingW, _ := a.NewWriter(ping)
	pongR, _ := a.NewReader(pong)
	pingR, _ := b.NewReader(ping)
	pongW, _ := b.NewWriter(pong)
	pingR.Listen(func(s rtps.Sample) { pongW.Write(s.Payload, nil) })
	if err := pingW.WaitReady(ctx, 1); err != nil {
		fmt.Println(err)
		return
	}
	if err := pongW.WaitReady(ctx, 1); err != nil {
		fmt.Println(err)
		return
	}
	pingW.Write([]byte{0, 1, 0, 0, 3, 0, 0, 0, 'h', 'i', 0}, nil)
	s, err := pongR.Take(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%q\n", s.Payload[8:10])
	// Output: "hi"
}
