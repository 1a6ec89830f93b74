package ros1

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/bluenviron/goroslib/v2"
	"github.com/bluenviron/goroslib/v2/pkg/apimaster"
	"github.com/bluenviron/goroslib/v2/pkg/apislave"
)

// busTimeout bounds one XML-RPC call to our own node or the master.
const busTimeout = 2 * time.Second

// selfBus counts the subscribers connected to our own publishers.
// goroslib's Publisher does not expose them, but the node's slave API
// answers getBusInfo, listing an outbound entry per connected subscriber
// (added only once the TCPROS handshake is done, which is what a send must
// wait for). The node's slave API address is looked up once per node, and
// its connection kept: a count runs beside every confirm's commit, and a
// new TCP connection per count cost more CPU (~0.5 ms on a 2-core VM,
// taken from the confirm's own path) than the whole XML-RPC exchange.
type selfBus struct {
	master, name string
	hc           *http.Client

	mu   sync.Mutex
	node *goroslib.Node // the node addr belongs to
	addr string
}

func newSelfBus(master, name string) *selfBus {
	return &selfBus{master: master, name: name, hc: &http.Client{
		Timeout:   busTimeout,
		Transport: &http.Transport{MaxIdleConnsPerHost: 2, IdleConnTimeout: busIdle},
	}}
}

// busIdle is how long a connection to our node (or the master) is kept
// unused.
const busIdle = 30 * time.Second

// outbound returns, per topic, how many subscribers n's publishers have.
func (b *selfBus) outbound(n *goroslib.Node) (map[string]int, error) {
	addr, err := b.slaveAddr(n)
	if err != nil {
		return nil, err
	}
	infos, err := apislave.NewClient(addr, b.name, b.hc).GetBusInfo()
	if err != nil && !timedOut(err) {
		// A kept connection the node closed (it restarted on the same
		// address, say) fails once: ask again on a new one.
		b.hc.CloseIdleConnections()
		infos, err = apislave.NewClient(addr, b.name, b.hc).GetBusInfo()
	}
	if err != nil {
		b.forget(n)
		return nil, fmt.Errorf("getBusInfo on our node at %s: %w", addr, err)
	}
	out := map[string]int{}
	for _, info := range infos {
		if len(info) < 6 {
			continue
		}
		dir, _ := info[2].(string)
		topic, _ := info[4].(string)
		connected, _ := info[5].(bool)
		if dir == "o" && connected {
			out[topic]++
		}
	}
	return out, nil
}

// count is outbound for one topic.
func (b *selfBus) count(n *goroslib.Node, topic string) (int, error) {
	m, err := b.outbound(n)
	if err != nil {
		return 0, err
	}
	return m[topic], nil
}

func (b *selfBus) slaveAddr(n *goroslib.Node) (string, error) {
	b.mu.Lock()
	if b.node == n && b.addr != "" {
		a := b.addr
		b.mu.Unlock()
		return a, nil
	}
	b.mu.Unlock()
	uri, err := apimaster.NewClient(b.master, b.name, b.hc).LookupNode(b.name)
	if err != nil {
		return "", fmt.Errorf("look up our node %s on the master: %w", b.name, err)
	}
	u, err := url.Parse(uri)
	if err != nil || u.Host == "" {
		return "", fmt.Errorf("master has a bad URI %q for node %s", uri, b.name)
	}
	b.mu.Lock()
	b.node, b.addr = n, u.Host
	b.mu.Unlock()
	return u.Host, nil
}

func timedOut(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

func (b *selfBus) forget(n *goroslib.Node) {
	b.mu.Lock()
	if b.node == n {
		b.node, b.addr = nil, ""
	}
	b.mu.Unlock()
}
