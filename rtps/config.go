package rtps

import (
	"fmt"
	"log/slog"
	"net/netip"
	"time"

	"github.com/actbridge/actbridge/rtps/udp"
	"github.com/actbridge/actbridge/rtps/wire"
)

// Config says where and how a participant discovers others. The zero
// value (plus a domain) is localhost-only discovery: loopback, no
// multicast, unicast SPDP to 127.0.0.1 — what ROS 2 calls
// ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST.
type Config struct {
	// Domain is the DDS domain id (0..232 with the default ports).
	Domain int
	// Addr is the IPv4 address of the one interface used; default
	// 127.0.0.1. Another address's unicast port is bound on every address
	// of the host (udp.ListenUnicastAll) but announced and sent from Addr.
	Addr netip.Addr
	// Multicast enables SPDP over the spec's group 239.255.0.1 on Addr's
	// interface; NewParticipant fails if the interface cannot.
	Multicast bool
	// Peers get SPDP by unicast at the discovery ports of participant
	// indices 0..PeerIndices-1 (and the SPDP port); default 127.0.0.1 when
	// Multicast is off.
	Peers []netip.Addr
	// HostMulticast also sends SPDP to the SPDP group out of every
	// interface of the host with TTL 0, which reaches the host's own
	// participants and no other host (udp.HostMulticast), and hears the
	// group's SPDP without joining it (udp.ListenGroup). It finds the
	// participants of this host that hear discovery on the group only:
	// CycloneDDS's default (no participant index) binds its unicast
	// discovery socket to a port of its own, and unicast to the group's
	// port reaches one of the host's sockets there. Our locators stay
	// Addr's. Ignored with Multicast.
	HostMulticast bool
	// PeerAddrs get SPDP by unicast at exactly these ports (a peer that
	// listens on a port of its own, such as a Fast DDS discovery server).
	PeerAddrs []netip.AddrPort
	// DiscoveryServers makes the participant a client of Fast DDS
	// Discovery Servers listening at these addresses (see dsclient.go):
	// its SPDP goes to them alone, and it learns the other participants
	// and their endpoints only from what they relay. Multicast,
	// HostMulticast, Peers and PeerAddrs must be unset with it.
	DiscoveryServers []netip.AddrPort
	// SuperClient asks the servers for every endpoint of the domain;
	// a plain client gets only those on topics it has endpoints on.
	SuperClient bool
	// PeerIndices is how many participant indices per peer; default
	// MaxIndex, so two of our participants find each other whichever free
	// indices they took (with 4, two past the first four never did).
	PeerIndices int
	// MaxIndex bounds the participant indices tried for our own port; default 32.
	MaxIndex int
	// LeaseDuration is how long peers keep us without news; default 20s.
	LeaseDuration time.Duration
	// AnnouncePeriod is the SPDP period; default LeaseDuration/5.
	AnnouncePeriod time.Duration
	// UserData is announced as the participant's USER_DATA QoS.
	UserData []byte
	// MaxParticipants bounds remote participants kept; default 256. A new
	// one takes the slot of the unprotected participant learned first
	// (see Participant.Protect), and is ignored when all are protected.
	MaxParticipants int
	// MaxEndpoints bounds remote endpoints kept; default 4096. Beyond it
	// a protected endpoint takes the slot of the unprotected one learned
	// first, and an unprotected one is ignored.
	MaxEndpoints int
	// MaxLease caps the lease a remote participant announces; default 5
	// minutes. A participant that never says goodbye (or whose goodbye
	// is ignored) is kept at most this long after its last announcement.
	MaxLease time.Duration
	// ReceiveBudget bounds the octets all our readers hold together of
	// samples that came ahead of a missing one and of partly received
	// fragmented samples, whatever the number of remote writers; default
	// 32 MiB (see Participant.reserve for who gives up what).
	ReceiveBudget int
	// MaxDatagram bounds received datagrams; default 65507 (all UDP allows).
	MaxDatagram int
	// Prefix is our GUID prefix; zero means random.
	Prefix wire.GUIDPrefix
	// Logger gets debug logs; nil means none.
	Logger *slog.Logger
	// FragmentRate bounds the octets a second a best-effort writer sends
	// of samples large enough for DATA_FRAGs, and FragmentBurst the octets
	// it sends at once; defaults 128 MiB/s and 64 KiB. A best-effort
	// reader is never repaired, and one whose socket buffer is the
	// kernel's default (Fast DDS) drops much of an unpaced 1 MB burst.
	FragmentRate, FragmentBurst int

	// tap, in this package's tests, sees every datagram received.
	tap func([]byte)
	// drop, in this package's tests, loses the datagrams it returns true
	// for, as a lossy network would (the kernel here has no netem).
	drop func() bool
}

func (c Config) withDefaults() (Config, error) {
	if !c.Addr.IsValid() {
		c.Addr = netip.AddrFrom4([4]byte{127, 0, 0, 1})
	}
	if !c.Addr.Is4() {
		return c, fmt.Errorf("%w: address %v is not IPv4", ErrConfig, c.Addr)
	}
	if len(c.DiscoveryServers) > 0 {
		if c.Multicast || c.HostMulticast || len(c.Peers) > 0 || len(c.PeerAddrs) > 0 {
			return c, fmt.Errorf("%w: a discovery server client announces itself to its servers only: no multicast, peers or peer addresses", ErrConfig)
		}
		for _, s := range c.DiscoveryServers {
			if !s.Addr().Unmap().Is4() || s.Port() == 0 {
				return c, fmt.Errorf("%w: discovery server %v is not an IPv4 address and port", ErrConfig, s)
			}
		}
	} else if c.SuperClient {
		return c, fmt.Errorf("%w: a super client needs discovery servers", ErrConfig)
	}
	if !c.Multicast && len(c.Peers) == 0 && len(c.PeerAddrs) == 0 && len(c.DiscoveryServers) == 0 {
		c.Peers = []netip.Addr{netip.AddrFrom4([4]byte{127, 0, 0, 1})}
	}
	if c.MaxIndex <= 0 {
		c.MaxIndex = 32
	}
	if c.PeerIndices <= 0 {
		c.PeerIndices = c.MaxIndex
	}
	if c.LeaseDuration <= 0 {
		c.LeaseDuration = 20 * time.Second
	}
	if c.AnnouncePeriod <= 0 {
		c.AnnouncePeriod = c.LeaseDuration / 5
	}
	if c.MaxParticipants <= 0 {
		c.MaxParticipants = 256
	}
	if c.MaxEndpoints <= 0 {
		c.MaxEndpoints = 4096
	}
	if c.ReceiveBudget <= 0 {
		c.ReceiveBudget = defaultReceiveBudget
	}
	if c.MaxLease <= 0 {
		c.MaxLease = 5 * time.Minute
	}
	if c.MaxDatagram <= 0 || c.MaxDatagram > 65507 {
		c.MaxDatagram = 65507
	}
	if _, err := udp.DefaultPorts().MetatrafficMulticast(c.Domain); err != nil {
		return c, fmt.Errorf("%w: %v", ErrConfig, err)
	}
	if c.FragmentRate <= 0 {
		c.FragmentRate = defaultFragmentRate
	}
	if c.FragmentBurst <= 0 {
		c.FragmentBurst = defaultFragmentBurst
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return c, nil
}
