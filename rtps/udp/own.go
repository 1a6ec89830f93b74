package udp

import (
	"net"
	"net/netip"
	"sync"
	"time"
)

// ownRefresh is how old the list of the host's addresses may be when an
// address is not in it: a DHCP lease or a new interface shows within it.
const ownRefresh = time.Second

// ownAddrs is the host's own IPv4 addresses, listed again at most every
// ownRefresh when asked about one it lacks.
type ownAddrs struct {
	mu    sync.Mutex
	addrs map[netip.Addr]bool
	at    time.Time
}

// has reports whether a is an address of one of the host's interfaces.
func (o *ownAddrs) has(a netip.Addr) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.addrs[a] {
		return true
	}
	if now := time.Now(); o.addrs == nil || now.Sub(o.at) >= ownRefresh {
		o.addrs, o.at = hostAddrs(), now
	}
	return o.addrs[a]
}

func hostAddrs() map[netip.Addr]bool {
	out := map[netip.Addr]bool{}
	as, err := net.InterfaceAddrs()
	if err != nil {
		return out
	}
	for _, a := range as {
		if pn, ok := a.(*net.IPNet); ok {
			if ip, ok := netip.AddrFromSlice(pn.IP); ok && ip.Unmap().Is4() {
				out[ip.Unmap()] = true
			}
		}
	}
	return out
}
