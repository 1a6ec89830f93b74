// Package udp is the RTPS UDPv4 transport: the spec's port numbers for a
// domain and participant index (DDSI-RTPS 2.5, 9.6.1.1), the SPDP
// multicast group, and sockets bound to one interface that send only
// where that interface can reach (a socket on loopback never sends off
// the host).
package udp
