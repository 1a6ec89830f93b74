package tcpros

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bluenviron/goroslib/v2"
	"github.com/bluenviron/goroslib/v2/pkg/apimaster"
	"github.com/bluenviron/goroslib/v2/pkg/msgproc"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/std_msgs"

	"github.com/actbridge/actbridge/ros1/rostest"
)

// These tests run a real rosmaster and real publishers (goroslib nodes in
// this process, rospy's rostopic as a child process killed by pid).

const topic = "/chatter"

// seen collects the std_msgs/String payloads a subscription delivered.
type seen struct {
	mu  sync.Mutex
	got map[string]int
}

func (s *seen) deliver(b []byte) {
	if len(b) < 4 || uint64(binary.LittleEndian.Uint32(b)) != uint64(len(b)-4) {
		return
	}
	s.mu.Lock()
	s.got[string(b[4:])]++
	s.mu.Unlock()
}

// count is how many messages with payload data arrived so far.
func (s *seen) count(data string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.got[data]
}

// waitFor waits until a message with payload data arrives after the call.
func (s *seen) waitFor(t *testing.T, data string) {
	t.Helper()
	n := s.count(data)
	rostest.Eventually(t, 30*time.Second, "a message "+data, func() error {
		if s.count(data) <= n {
			return fmt.Errorf("none yet")
		}
		return nil
	})
}

func node(t *testing.T, m *rostest.Master, name string) *goroslib.Node {
	t.Helper()
	n, err := goroslib.NewNode(goroslib.NodeConf{Name: name, MasterAddress: m.Address(), Host: "127.0.0.1",
		LogDestinations: goroslib.LogDestinationCallback, OnLog: func(goroslib.LogLevel, string) {}})
	if err != nil {
		t.Fatalf("node %s: %v", name, err)
	}
	return n
}

// publish starts a goroslib node publishing data on topic every 20 ms;
// the returned func (also run at cleanup) stops it and closes the node.
func publish(t *testing.T, m *rostest.Master, name, data string) (stop func()) {
	t.Helper()
	return publishEach(t, m, name, 20*time.Millisecond, func() string { return data })
}

// publishEach is publish with a period and the payload asked for each time.
func publishEach(t *testing.T, m *rostest.Master, name string, every time.Duration, next func() string) (stop func()) {
	t.Helper()
	n := node(t, m, name)
	p, err := goroslib.NewPublisher(goroslib.PublisherConf{Node: n, Topic: topic, Msg: &std_msgs.String{}})
	if err != nil {
		n.Close()
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tk := time.NewTicker(every)
		defer tk.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tk.C:
				p.Write(&std_msgs.String{Data: next()})
			}
		}
	}()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			wg.Wait()
			p.Close()
			n.Close()
		})
	}
	t.Cleanup(stop)
	return stop
}

// subscribe subscribes on behalf of a fresh goroslib node named owner.
func subscribe(t *testing.T, m *rostest.Master, owner string, s *seen) *Subscription {
	t.Helper()
	return subscribeEvery(t, m, owner, s, 0)
}

// subscribeEvery is subscribe with Config.Every set.
func subscribeEvery(t *testing.T, m *rostest.Master, owner string, s *seen, every time.Duration) *Subscription {
	t.Helper()
	n := node(t, m, owner)
	t.Cleanup(n.Close)
	var zero std_msgs.String
	typ, _ := msgproc.Type(zero)
	md5, _ := msgproc.MD5(zero)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	sub, err := Subscribe(ctx, Config{Master: m.Address(), CallerID: "/" + owner, Topic: topic, Type: typ, MD5: md5, Every: every, Logf: t.Logf}, s.deliver)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sub.Close() })
	return sub
}

func TestReceivesFromEveryPublisherAcrossRestarts(t *testing.T) {
	m := rostest.StartMaster(t)
	s := &seen{got: map[string]int{}}
	subscribe(t, m, "owner", s)

	stop := publish(t, m, "talker", "first")
	s.waitFor(t, "first")
	stop()
	publish(t, m, "talker", "restarted") // same name, new URI
	s.waitFor(t, "restarted")
	publish(t, m, "other_talker", "second")
	s.waitFor(t, "second")
	s.waitFor(t, "restarted") // both publishers at once

	rostest.StartProcess(t, "/usr/bin/rostopic", "rostopic pub", m.Env(), "pub", "-r", "50", topic, "std_msgs/String", "data: rospy")
	s.waitFor(t, "rospy")

	out, err := m.Run(30*time.Second, "rostopic", "info", topic)
	if err != nil {
		t.Fatal(err)
	}
	if _, subs, _ := strings.Cut(out, "Subscribers:"); !strings.Contains(subs, "/owner") {
		t.Errorf("rostopic info does not list /owner as a subscriber:\n%s", out)
	}
}

func TestCloseUnregistersOnlyTheSubscription(t *testing.T) {
	m := rostest.StartMaster(t)
	s := &seen{got: map[string]int{}}
	sub := subscribe(t, m, "owner", s)
	publish(t, m, "talker", "hello")
	s.waitFor(t, "hello")
	uri := sub.cfg.CallerAPI

	if err := sub.Close(); err != nil {
		t.Fatal(err)
	}
	out, err := m.Run(30*time.Second, "rostopic", "info", topic)
	if err != nil {
		t.Fatal(err)
	}
	if _, subs, _ := strings.Cut(out, "Subscribers:"); strings.Contains(subs, "/owner") {
		t.Errorf("rostopic info still lists /owner after Close:\n%s", out)
	}
	// The owner node is still registered with its own URI: nothing shut it down.
	if got, err := apimaster.NewClient(m.Address(), "/test", http.DefaultClient).LookupNode("/owner"); err != nil || got != uri {
		t.Errorf("owner node at %q (%v), want %q", got, err, uri)
	}
}

func TestPublisherOfAnotherTypeIsNotRead(t *testing.T) {
	m := rostest.StartMaster(t)
	n := node(t, m, "wrong_type")
	t.Cleanup(n.Close)
	p, err := goroslib.NewPublisher(goroslib.PublisherConf{Node: n, Topic: topic, Msg: &std_msgs.Int32{}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	var mu sync.Mutex
	var logs []string
	var zero std_msgs.String
	typ, _ := msgproc.Type(zero)
	md5, _ := msgproc.MD5(zero)
	owner := node(t, m, "owner")
	t.Cleanup(owner.Close)
	delivered := 0
	sub, err := Subscribe(context.Background(), Config{Master: m.Address(), CallerID: "/owner", Topic: topic, Type: typ, MD5: md5,
		Logf: func(f string, a ...any) { mu.Lock(); logs = append(logs, fmt.Sprintf(f, a...)); mu.Unlock() }},
		func([]byte) { mu.Lock(); delivered++; mu.Unlock() })
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sub.Close() })
	rostest.Eventually(t, 30*time.Second, "the mismatch logged", func() error {
		mu.Lock()
		defer mu.Unlock()
		for _, l := range logs {
			if strings.Contains(l, errUnwanted.Error()) {
				return nil
			}
		}
		return fmt.Errorf("logs: %q", logs)
	})
	mu.Lock()
	defer mu.Unlock()
	if delivered != 0 {
		t.Errorf("%d messages of the wrong type delivered", delivered)
	}
}

// A reader pausing between batches (here for an hour) reads at once when
// asked for the newest message, and Fresh returns once it was delivered.
// (Half a second of writes lets goroslib's writer put them on the wire.)
func TestFreshCutsThePauseShortAndWaitsForANewerMessage(t *testing.T) {
	m := rostest.StartMaster(t)
	s := &seen{got: map[string]int{}}
	sub := subscribeEvery(t, m, "owner", s, time.Hour)

	var data atomic.Pointer[string]
	var written atomic.Int64 // writes of the current data
	set := func(d string) { written.Store(0); data.Store(&d) }
	set("before")
	publishEach(t, m, "talker", 10*time.Millisecond, func() string {
		written.Add(1) // counted before the write: the wait below asks for 50
		return *data.Load()
	})

	s.waitFor(t, "before") // the first read; the reader pauses for an hour after it
	for i, d := range []string{"after", "again"} {
		set(d)
		rostest.Eventually(t, 30*time.Second, d+" on the wire", func() error {
			if written.Load() < 50 {
				return fmt.Errorf("written %d times", written.Load())
			}
			return nil
		})
		fctx, fcancel := context.WithTimeout(context.Background(), 30*time.Second)
		err := sub.Fresh(fctx)
		fcancel()
		if err != nil {
			t.Fatalf("request %d: Fresh: %v", i, err)
		}
		if s.count(d) == 0 {
			t.Errorf("request %d: Fresh returned before %q was delivered", i, d)
		}
	}
}

// With no publisher nothing newer can come: Fresh answers at once, and so
// it does when the reader is pausing and finds its socket empty.
func TestFreshAnswersWhenNothingNewerIsOnTheWire(t *testing.T) {
	m := rostest.StartMaster(t)
	s := &seen{got: map[string]int{}}
	sub := subscribeEvery(t, m, "owner", s, time.Hour)
	fresh := func(what string) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := sub.Fresh(ctx); err != nil {
			t.Fatalf("%s: Fresh = %v", what, err)
		}
	}
	fresh("no publisher")

	// One message, then silence: the reader pauses for an hour after it.
	n := node(t, m, "talker")
	t.Cleanup(n.Close)
	p, err := goroslib.NewPublisher(goroslib.PublisherConf{Node: n, Topic: topic, Msg: &std_msgs.String{}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	rostest.Eventually(t, 30*time.Second, "the subscriber connected", func() error {
		if sub.live.Load() == 0 {
			return errors.New("not yet")
		}
		return nil
	})
	p.Write(&std_msgs.String{Data: "once"})
	rostest.Eventually(t, 30*time.Second, "once delivered", func() error {
		if s.count("once") == 0 {
			return errors.New("not yet")
		}
		return nil
	})
	fresh("a pausing reader with an empty socket")
	fresh("again")
}

// A reader woken for a request whose publisher is gone ends without a
// delivery; the request is answered all the same, and so are later ones.
func TestFreshIsAnsweredWhenTheWokenReaderEnds(t *testing.T) {
	m := rostest.StartMaster(t)
	s := &seen{got: map[string]int{}}
	sub := subscribeEvery(t, m, "owner", s, time.Hour)
	stop := publish(t, m, "talker", "once")
	s.waitFor(t, "once") // the reader now pauses for an hour
	stop()               // the publisher closes the connection
	for i := range 2 {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		err := sub.Fresh(ctx)
		cancel()
		if err != nil {
			t.Fatalf("request %d after the publisher left: %v", i, err)
		}
	}
}
