package node

import (
	"fmt"
	"strings"

	"github.com/actbridge/actbridge/rtps"
	"github.com/actbridge/actbridge/rtps/udp"
	"github.com/actbridge/actbridge/rtps/wire"
)

// Advice says which participants d's range cannot reach, as far as what
// discovery found (known; self is ours) shows it, and what to set; ""
// when nothing is known to be amiss. docs/discovery.md has the table it
// follows.
func (d Discovery) Advice(self rtps.ParticipantData, known []rtps.ParticipantData) string {
	if len(d.Servers) > 0 {
		return d.serverAdvice(known)
	}
	var loopbackOnly, groupOnly int
	for _, p := range known {
		if onlyLoopback(p.MetatrafficUnicast) {
			loopbackOnly++
		}
		if d.Range == Off && len(p.MetatrafficMulticast) > 0 && !indexPort(d.Domain, p.MetatrafficUnicast) {
			groupOnly++
		}
	}
	var ours []string
	for _, l := range self.MetatrafficUnicast {
		ours = append(ours, l.String())
	}
	switch {
	case d.Range == Subnet && loopbackOnly > 0:
		return fmt.Sprintf("%d participants announce only loopback addresses (Humble's ROS_LOCALHOST_ONLY=1): they answer loopback alone, and %s discovery announces %s; "+
			"run the bridge on their computer with %s=%s", loopbackOnly, Subnet, strings.Join(ours, ", "), EnvDiscoveryRange, Localhost)
	case groupOnly > 0:
		return fmt.Sprintf("%d participants hear discovery on the SPDP multicast group, not at a participant index (rmw's default range %s): "+
			"%s with %s reaches them one at a time through port %d; set %s=%s", groupOnly, Subnet, Off, EnvStaticPeers, spdpPort(d.Domain), EnvDiscoveryRange, Localhost)
	case len(known) > 0:
		return ""
	}
	const off = "nodes started with " + EnvDiscoveryRange + "=OFF talk to no other process (give them LOCALHOST or SUBNET)"
	switch d.Range {
	case Subnet:
		return fmt.Sprintf("no participant answered on %s (domain %d): %s; nodes of this computer under Humble's %s=1 answer loopback alone (set %s=%s); another interface: --interface; check %s",
			strings.Join(ours, ", "), d.Domain, off, EnvLocalhostOnly, EnvDiscoveryRange, Localhost, EnvDomainID)
	case Off:
		return fmt.Sprintf("no static peer answered (domain %d): only %s are asked; for the nodes of this computer set %s=%s; %s", d.Domain, EnvStaticPeers, EnvDiscoveryRange, Localhost, off)
	}
	return fmt.Sprintf("no participant of this computer answered (domain %d): %s; a robot on another computer needs %s=%s or %s; check %s",
		d.Domain, off, EnvDiscoveryRange, Subnet, EnvStaticPeers, EnvDomainID)
}

// Advice is Discovery.Advice for this Context's discovery and what it
// found so far.
func (c *Context) Advice() string { return c.disc.Advice(c.p.Data(), c.p.Participants()) }

// onlyLoopback reports whether the UDP locators of ls are all loopback
// ones (Fast DDS adds shared memory locators, which are neither).
func onlyLoopback(ls []wire.Locator) bool {
	n := 0
	for _, l := range ls {
		if ap, ok := l.AddrPort(); ok {
			if !ap.Addr().IsLoopback() {
				return false
			}
			n++
		}
	}
	return n > 0
}

// indexPort reports whether a locator listens at a participant index's
// discovery port, where unicast discovery finds it.
func indexPort(domain int, ls []wire.Locator) bool {
	ports := udp.DefaultPorts()
	for _, l := range ls {
		ap, ok := l.AddrPort()
		if !ok {
			continue
		}
		for i := range 120 {
			if p, err := ports.MetatrafficUnicast(domain, i); err == nil && p == ap.Port() {
				return true
			}
		}
	}
	return false
}

func spdpPort(domain int) uint16 {
	p, _ := udp.DefaultPorts().MetatrafficMulticast(domain)
	return p
}

// serverAdvice is Advice for a discovery server client: no server
// answered, or the servers relayed nobody.
func (d Discovery) serverAdvice(known []rtps.ParticipantData) string {
	var names []string
	for _, s := range d.Servers {
		names = append(names, s.String())
	}
	servers := 0
	for _, p := range known {
		if isServer(p) {
			servers++
		}
	}
	switch {
	case servers == 0:
		return fmt.Sprintf("no discovery server answered at %s (domain %d): start one (fast-discovery-server -i 0) or fix %s", strings.Join(names, ", "), d.Domain, EnvDiscoveryServer)
	case len(known) == servers:
		return fmt.Sprintf("the discovery server at %s relayed no other participant: the robot's nodes must be its clients too (%s set for them, same domain %d); "+
			"a plain client hears only of the participants it shares a topic with (%s=TRUE for all)", strings.Join(names, ", "), EnvDiscoveryServer, d.Domain, EnvSuperClient)
	}
	return ""
}

// isServer reports whether p says it is a discovery server.
func isServer(p rtps.ParticipantData) bool {
	t, _ := p.Property(rtps.PropertyParticipantType)
	return t == "SERVER" || t == "BACKUP"
}
