package udp_test

import (
	"fmt"

	"github.com/actbridge/actbridge/rtps/udp"
)

// The ports of domain 0: SPDP multicast, then participant 1's unicast
// discovery port.
func ExamplePorts() {
	p := udp.DefaultPorts()
	spdp, _ := p.MetatrafficMulticast(0)
	meta, _ := p.MetatrafficUnicast(0, 1)
	fmt.Println(udp.SPDPGroup(), spdp, meta)
	// Output: 239.255.0.1 7400 7412
}
