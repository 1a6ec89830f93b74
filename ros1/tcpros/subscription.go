package tcpros

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bluenviron/goroslib/v2/pkg/apimaster"
	"github.com/bluenviron/goroslib/v2/pkg/xmlrpc"
)

// While no publisher is connected the master is asked for publishers every
// fastPoll (a restarted one is back soon); while one is, every slowPoll,
// which only bounds how long an additional publisher waits to be found. A
// lost connection asks at once; a failing publisher is retried every
// retryPause. rpcTimeout bounds one XML-RPC call or TCP connect.
const (
	fastPoll   = time.Second
	slowPoll   = 5 * time.Second
	retryPause = time.Second
	rpcTimeout = 2 * time.Second
)

// Config says which topic to receive and on behalf of which node.
type Config struct {
	Master   string // the master's host:port
	CallerID string // absolute name of the node the subscription belongs to
	// CallerAPI is that node's slave API URI exactly as the master has it;
	// empty means look it up. Another URI under the same name would make
	// the master shut the node down.
	CallerAPI string
	Topic     string // absolute topic name
	Type, MD5 string // e.g. sensor_msgs/JointState and its md5sum
	// Definition is the message definition sent to publishers (optional).
	Definition string
	// Every is the shortest gap between two deliveries from one publisher;
	// the messages in between are skipped. Zero delivers every read batch.
	Every time.Duration
	// Count, when set, is told before each delivery how many messages its
	// batch held (the newest is delivered, the rest skipped): the
	// publisher's rate, which paced deliveries hide.
	Count func(n int)
	// Logf receives connection events; nothing is logged if nil.
	Logf func(format string, args ...any)
	// all delivers every message, with its publisher (SubscribeAll).
	all bool
}

// Subscription receives one topic from every publisher the master lists,
// until Close.
type Subscription struct {
	cfg     Config
	deliver func(msg []byte, publisher string)
	rt      http.RoundTripper
	live    atomic.Int32 // publishers connected now
	connMu  sync.Mutex
	conns   map[string]int // connections per publisher caller ID
	fresh   *fresh

	stop      context.CancelFunc
	wg        sync.WaitGroup
	closeOnce sync.Once
	closeErr  error
}

// Subscribe registers cfg.CallerID as a subscriber of cfg.Topic and starts
// receiving; ctx bounds the registration only. fn gets the newest message
// of each read batch (bytes valid during the call only, no length prefix)
// and is called concurrently, from one goroutine per publisher.
func Subscribe(ctx context.Context, cfg Config, fn func(msg []byte)) (*Subscription, error) {
	if fn == nil {
		return nil, fmt.Errorf("tcpros: a callback is required")
	}
	cfg.all = false
	return open(ctx, cfg, func(msg []byte, _ string) { fn(msg) })
}

// SubscribeAll is Subscribe for a topic whose every message counts (the
// frame tree, events), not only the newest: fn gets each message in order
// with its publisher: the node the master lists at the URI it came from,
// whose connection header must give the same caller ID.
// Config.Every and Count do not apply.
func SubscribeAll(ctx context.Context, cfg Config, fn func(msg []byte, publisher string)) (*Subscription, error) {
	if fn == nil {
		return nil, fmt.Errorf("tcpros: a callback is required")
	}
	cfg.all, cfg.Every, cfg.Count = true, 0, nil
	return open(ctx, cfg, fn)
}

func open(ctx context.Context, cfg Config, fn func(msg []byte, publisher string)) (*Subscription, error) {
	if cfg.Master == "" || cfg.CallerID == "" || cfg.Topic == "" || cfg.Type == "" || cfg.MD5 == "" {
		return nil, fmt.Errorf("tcpros: Master, CallerID, Topic, Type and MD5 are required")
	}
	if cfg.Logf == nil {
		cfg.Logf = func(string, ...any) {}
	}
	// No keep-alive: a connection kept across a master restart fails once for nothing.
	s := &Subscription{cfg: cfg, deliver: fn, rt: &http.Transport{DisableKeepAlives: true}, fresh: newFresh(), conns: map[string]int{}}
	if s.cfg.CallerAPI == "" {
		uri, err := s.lookupNode(ctx, cfg.CallerID)
		if err != nil {
			return nil, fmt.Errorf("tcpros: subscribe %s: %w", cfg.Topic, err)
		}
		s.cfg.CallerAPI = uri
	}
	var res apimaster.ResponseRegister
	req := apimaster.RequestRegister{CallerID: cfg.CallerID, Topic: cfg.Topic, TopicType: cfg.Type, CallerURL: s.cfg.CallerAPI}
	if err := s.call(ctx, cfg.Master, "registerSubscriber", req, &res); err != nil {
		return nil, fmt.Errorf("tcpros: registerSubscriber %s at %s: %w", cfg.Topic, cfg.Master, err)
	}
	if res.Code != 1 {
		return nil, fmt.Errorf("tcpros: registerSubscriber %s: code %d: %s", cfg.Topic, res.Code, res.StatusMessage)
	}
	life, stop := context.WithCancel(context.Background())
	s.stop = stop
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		s.run(life, res.URIs)
	}()
	return s, nil
}

// Publishers lists the caller IDs of the publishers connected now, sorted:
// who is really sending, where the master may still list a node that was
// killed without unregistering.
func (s *Subscription) Publishers() []string {
	s.connMu.Lock()
	defer s.connMu.Unlock()
	out := make([]string, 0, len(s.conns))
	for p := range s.conns {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

// connected counts a connection to publisher up (+1) or down (-1).
func (s *Subscription) connected(publisher string, d int) {
	s.connMu.Lock()
	defer s.connMu.Unlock()
	if s.conns[publisher] += d; s.conns[publisher] <= 0 {
		delete(s.conns, publisher)
	}
}

// Fresh waits until the newest message on the wire has been delivered,
// cutting short the readers' pause between batches: a caller about to act
// on the topic's state gets the newest, not one up to Config.Every old.
// A reader that is not pausing is caught up already, so with no publisher
// connected Fresh returns at once; ctx bounds the wait otherwise.
func (s *Subscription) Fresh(ctx context.Context) error {
	done := s.fresh.request()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Close stops receiving and unregisters from the master (a master that
// does not answer costs at most rpcTimeout). Calling it again does nothing.
func (s *Subscription) Close() error {
	s.closeOnce.Do(func() {
		s.stop()
		s.wg.Wait()
		var res apimaster.ResponseUnregister
		req := apimaster.RequestUnregister{CallerID: s.cfg.CallerID, Topic: s.cfg.Topic, CallerURL: s.cfg.CallerAPI}
		if err := s.call(context.Background(), s.cfg.Master, "unregisterSubscriber", req, &res); err != nil {
			s.closeErr = fmt.Errorf("tcpros: unregisterSubscriber %s: %w", s.cfg.Topic, err)
		}
	})
	return s.closeErr
}

// run follows the listed publishers and polls the master until ctx ends.
func (s *Subscription) run(ctx context.Context, uris []string) {
	follows := map[string]context.CancelFunc{}
	defer func() {
		for _, cancel := range follows {
			cancel()
		}
	}()
	lost := make(chan struct{}, 1)
	update := func(pubs []publisher) {
		want := map[string]bool{}
		for _, pub := range pubs {
			k := pub.uri + "\x00" + pub.node
			want[k] = true
			if follows[k] == nil {
				fctx, cancel := context.WithCancel(ctx)
				follows[k] = cancel
				s.wg.Add(1)
				go func() {
					defer s.wg.Done()
					s.follow(fctx, pub, lost)
				}()
			}
		}
		for u, cancel := range follows {
			if !want[u] {
				cancel()
				delete(follows, u)
			}
		}
	}
	// The master's names for the publishers, so each is known by the name
	// it registered under; until the master answers, by their addresses
	// (handshake), which no pin names.
	if pubs, err := s.publishers(ctx); err == nil {
		update(pubs)
	} else {
		s.cfg.Logf("tcpros: %s: cannot name the publishers: %v; following their URIs", s.cfg.Topic, err)
		unnamed := make([]publisher, len(uris))
		for i, u := range uris {
			unnamed[i] = publisher{uri: u}
		}
		update(unnamed)
	}
	t := time.NewTimer(fastPoll)
	defer t.Stop()
	failing := false
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-lost:
		}
		pubs, err := s.publishers(ctx)
		if (err != nil) != failing && ctx.Err() == nil {
			if err != nil {
				s.cfg.Logf("tcpros: %s: cannot list publishers: %v; keeping the connections", s.cfg.Topic, err)
			} else {
				s.cfg.Logf("tcpros: %s: master answers again", s.cfg.Topic)
			}
		}
		failing = err != nil
		if err == nil {
			update(pubs)
		}
		if s.live.Load() > 0 {
			t.Reset(slowPoll)
		} else {
			t.Reset(fastPoll)
		}
	}
}

// follow keeps a connection to one publisher until ctx ends, trying again
// after retryPause when it fails; an error is logged when it changes.
func (s *Subscription) follow(ctx context.Context, pub publisher, lost chan<- struct{}) {
	logged := ""
	for {
		up := false
		err := s.receive(ctx, pub, func() {
			up = true
			s.live.Add(1)
			s.cfg.Logf("tcpros: %s: receiving from %s", s.cfg.Topic, pub.uri)
		})
		if up {
			s.live.Add(-1)
			logged = ""
		}
		if ctx.Err() != nil {
			return
		}
		if msg := err.Error(); msg != logged {
			s.cfg.Logf("tcpros: %s: %v; trying again", s.cfg.Topic, err)
			logged = msg
		}
		select {
		case lost <- struct{}{}:
		default:
		}
		t := time.NewTimer(retryPause)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
}

// publisher is a node the master lists as publishing the topic: its name
// there ("" when unknown) and its slave API URI.
type publisher struct{ uri, node string }

// publishers asks the master for the topic's publishers. It only reads:
// registerSubscriber would list them too, but would also register our
// node again behind roslink's back after a master restart, hiding the
// restart from it.
func (s *Subscription) publishers(ctx context.Context) ([]publisher, error) {
	var res apimaster.ResponseGetSystemState
	if err := s.call(ctx, s.cfg.Master, "getSystemState", apimaster.RequestGetSystemState{CallerID: s.cfg.CallerID}, &res); err != nil {
		return nil, fmt.Errorf("getSystemState at %s: %w", s.cfg.Master, err)
	}
	if res.Code != 1 {
		return nil, fmt.Errorf("getSystemState: code %d: %s", res.Code, res.StatusMessage)
	}
	var pubs []publisher
	for _, e := range res.State.PublishedTopics {
		if e.Name != s.cfg.Topic {
			continue
		}
		for _, node := range e.Nodes {
			if uri, err := s.lookupNode(ctx, node); err == nil { // a node gone meanwhile is skipped
				pubs = append(pubs, publisher{uri: uri, node: node})
			}
		}
	}
	return pubs, nil
}

// lookupNode returns the slave API URI the master has for a node.
func (s *Subscription) lookupNode(ctx context.Context, name string) (string, error) {
	var res apimaster.ResponseLookup
	if err := s.call(ctx, s.cfg.Master, "lookupNode", apimaster.RequestLookup{CallerID: s.cfg.CallerID, Name: name}, &res); err != nil {
		return "", fmt.Errorf("lookupNode %s at %s: %w", name, s.cfg.Master, err)
	}
	if res.Code != 1 {
		return "", fmt.Errorf("lookupNode %s: code %d: %s", name, res.Code, res.StatusMessage)
	}
	return res.URL, nil
}

// call runs one XML-RPC call to host (host:port), bounded by ctx and rpcTimeout.
func (s *Subscription) call(ctx context.Context, host, method string, req, res any) error {
	ctx, cancel := context.WithTimeout(ctx, rpcTimeout)
	defer cancel()
	return xmlrpc.NewClient(host, &http.Client{Transport: ctxTransport{ctx, s.rt}}).Do(method, req, res)
}

// ctxTransport makes requests end with ctx: goroslib's XML-RPC client
// takes no context.
type ctxTransport struct {
	ctx context.Context
	rt  http.RoundTripper
}

func (t ctxTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	return t.rt.RoundTrip(r.WithContext(t.ctx))
}

// hostOf is the host:port of a slave API URI.
func hostOf(uri string) (string, error) {
	u, err := url.Parse(uri)
	if err != nil || u.Host == "" {
		return "", fmt.Errorf("bad slave API URI %q", uri)
	}
	return u.Host, nil
}
