// Package rtps is a DDSI-RTPS 2.x participant in pure Go: it announces
// itself and learns remote participants over SPDP (UDPv4, multicast where
// the interface allows it and unicast peer lists where it does not),
// removes them when their lease ends or when they say goodbye, and says
// goodbye itself on Close.
//
// The wire format lives in rtps/wire and the transport in rtps/udp; this
// package knows nothing of the applications built on it.
package rtps
