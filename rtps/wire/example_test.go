package wire_test

import (
	"encoding/binary"
	"fmt"

	"github.com/actbridge/actbridge/rtps/wire"
)

// A HEARTBEAT with its INFO_DST, marshalled and parsed back.
func Example() {
	m := wire.Message{
		Header: wire.Header{Version: wire.Version(), Vendor: wire.VendorCyclone},
		Submessages: []wire.Submessage{
			&wire.InfoDst{Prefix: wire.GUIDPrefix{1, 2, 3}},
			&wire.Heartbeat{WriterID: wire.EntityIDSEDPPublicationsWriter, First: 1, Last: 3, Count: 1},
		},
	}
	b, _ := m.Marshal()
	var got wire.Message
	if err := got.Unmarshal(b); err != nil {
		fmt.Println(err)
		return
	}
	hb := got.Submessages[1].(*wire.Heartbeat)
	fmt.Println(len(b), got.Header.Vendor, hb.WriterID, hb.First, hb.Last)
	// Output: 68 01.10 000003c2 1 3
}

// A parameter list as SPDP carries it: standard ids, padded to 4 octets.
func ExampleParameterList() {
	le := binary.LittleEndian
	pl := wire.ParameterList{
		{ID: wire.PIDUserData, Value: wire.AppendOctets(nil, le, []byte("enclave=/;"))},
		{ID: wire.PIDDomainID, Value: wire.Uint32Value(0, le)},
	}
	b, _ := pl.AppendTo(nil, le)
	back, n, _ := wire.UnmarshalParameterList(b, le)
	v, _ := back.Get(wire.PIDUserData)
	ud, _ := wire.ParseOctets(v, le)
	fmt.Println(len(b), n, string(ud))
	// Output: 32 32 enclave=/;
}
