package tcpros

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bluenviron/goroslib/v2/pkg/apimaster"
	"github.com/bluenviron/goroslib/v2/pkg/apislave"
	"github.com/bluenviron/goroslib/v2/pkg/msgproc"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/std_msgs"
	"github.com/bluenviron/goroslib/v2/pkg/protocommon"
	"github.com/bluenviron/goroslib/v2/pkg/prototcp"

	"github.com/actbridge/actbridge/ros1/rostest"
)

// impostor registers with the master as node registered, publishing
// std_msgs/String data on topic, and answers every subscriber with a
// connection header whose caller ID is claims: a node speaking under
// another node's name.
func impostor(t *testing.T, m *rostest.Master, registered, claims, data string) {
	t.Helper()
	var zero std_msgs.String
	typ, _ := msgproc.Type(zero)
	md5, _ := msgproc.MD5(zero)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer c.Close()
				if _, err := readHeader(bufio.NewReader(c)); err != nil {
					return
				}
				var hdr bytes.Buffer
				_ = protocommon.HeaderEncode(&hdr, &prototcp.HeaderPublisher{Callerid: claims, Topic: topic, Type: typ, Md5sum: md5, Latching: 0})
				if _, err := c.Write(hdr.Bytes()); err != nil {
					return
				}
				body := msg(data) // the String's length-prefixed field
				for {
					if _, err := c.Write(msg(string(body))); err != nil { // the message, length-prefixed
						return
					}
					time.Sleep(20 * time.Millisecond)
				}
			}()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	api, err := apislave.NewServer("127.0.0.1:0", net.ParseIP("127.0.0.1"), "", time.Second)
	if err != nil {
		t.Fatal(err)
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		api.Serve(func(req apislave.Request) apislave.Response {
			if _, ok := req.(*apislave.RequestRequestTopic); ok {
				return apislave.ResponseRequestTopic{Code: 1, Protocol: []any{"TCPROS", "127.0.0.1", port}}
			}
			return apislave.ResponseGetPid{Code: 1, Pid: 1}
		})
	}()
	t.Cleanup(api.Close)
	mc := apimaster.NewClient(m.Address(), registered, http.DefaultClient)
	if _, err := mc.RegisterPublisher(topic, typ, api.URL()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = mc.UnregisterPublisher(topic, api.URL()) })
}

// A publisher is known by the name the master lists at its URI: one that
// names itself another node in its connection header (to speak for that
// node's frames) is not read, and the refusal is logged; an honest
// publisher beside it is delivered under its registered name.
func TestAPublisherNamingItselfAnotherNodeIsNotRead(t *testing.T) {
	m := rostest.StartMaster(t)
	impostor(t, m, "/rogue", "/localisation", "forged")
	publish(t, m, "localisation", "true")
	owner := node(t, m, "owner")
	t.Cleanup(owner.Close)
	var zero std_msgs.String
	typ, _ := msgproc.Type(zero)
	md5, _ := msgproc.MD5(zero)
	var mu sync.Mutex
	from := map[string]map[string]int{} // publisher → payload → count
	var logs []string
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	sub, err := SubscribeAll(ctx, Config{Master: m.Address(), CallerID: "/owner", Topic: topic, Type: typ, MD5: md5,
		Logf: func(f string, a ...any) { mu.Lock(); logs = append(logs, fmt.Sprintf(f, a...)); mu.Unlock() }},
		func(b []byte, publisher string) {
			mu.Lock()
			defer mu.Unlock()
			if from[publisher] == nil {
				from[publisher] = map[string]int{}
			}
			if len(b) >= 4 {
				from[publisher][string(b[4:])]++
			}
		})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sub.Close() })
	rostest.Eventually(t, 30*time.Second, "the honest publisher read and the impostor refused", func() error {
		mu.Lock()
		defer mu.Unlock()
		refused := false
		for _, l := range logs {
			refused = refused || strings.Contains(l, "calls itself /localisation, the master lists /rogue there")
		}
		if from["/localisation"]["true"] == 0 || !refused {
			return fmt.Errorf("delivered %v; logs %q", from, logs)
		}
		return nil
	})
	mu.Lock()
	defer mu.Unlock()
	for p, got := range from {
		if got["forged"] > 0 {
			t.Errorf("the impostor's messages were delivered as %s's", p)
		}
	}
}
