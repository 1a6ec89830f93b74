package service_test

import (
	"fmt"

	"github.com/actbridge/actbridge/ros2/service"
	"github.com/actbridge/actbridge/rtps"
	"github.com/actbridge/actbridge/rtps/wire"
)

// A Trigger request (one dummy octet) framed for a CycloneDDS server.
func ExampleAppendCycloneFrame() {
	body := []byte{0, 1, 0, 0, 0}
	framed, _ := service.AppendCycloneFrame(nil, service.RequestHeader{GUID: 0xc0ffee, Seq: 1}, body)
	fmt.Printf("% x\n", framed)
	h, msg, _ := service.ParseCycloneFrame(framed)
	fmt.Printf("%#x %d % x\n", h.GUID, h.Seq, msg)
	// Output:
	// 00 01 00 00 ee ff c0 00 00 00 00 00 01 00 00 00 00 00 00 00 00
	// 0xc0ffee 1 00 01 00 00 00
}

// Which dialect each vendor's services speak.
func ExampleDialectOf() {
	for _, v := range []wire.VendorID{wire.VendorCyclone, wire.VendorEProsima, rtps.VendorID} {
		fmt.Println(v, service.DialectOf(v))
	}
	// Output:
	// 01.10 cyclone
	// 01.0f fastdds
	// 01.ab fastdds
}

// The related sample identity a reply carries, under both ids.
func ExampleSampleIdentity_InlineQoS() {
	id := service.SampleIdentity{Writer: wire.GUID{Entity: 0x104}, SN: 3}
	for _, p := range id.InlineQoS() {
		fmt.Println(p.ID, len(p.Value))
	}
	// Output:
	// pid(0x0083) 24
	// pid(0x800f) 24
}
