package ros1

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// busInfoReply is a slave API's getBusInfo answer: one connected outbound
// link on /arm/goal, one inbound link.
const busInfoReply = `<?xml version="1.0"?><methodResponse><params><param><value><array><data>` +
	`<value><i4>1</i4></value><value><string></string></value><value><array><data>` +
	`<value><array><data><value><i4>1</i4></value><value><string>/sim</string></value><value><string>o</string></value>` +
	`<value><string>TCPROS</string></value><value><string>/arm/goal</string></value><value><boolean>1</boolean></value></data></array></value>` +
	`<value><array><data><value><i4>2</i4></value><value><string>/sim</string></value><value><string>i</string></value>` +
	`<value><string>TCPROS</string></value><value><string>/arm/status</string></value><value><boolean>1</boolean></value></data></array></value>` +
	`</data></array></value></data></array></value></param></params></methodResponse>`

// fakeSlave answers getBusInfo and counts the TCP connections it accepted.
func fakeSlave(t *testing.T) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var conns atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if !strings.Contains(string(body), "getBusInfo") {
			http.Error(w, "unexpected call", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "text/xml")
		_, _ = io.WriteString(w, busInfoReply)
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv, &conns
}

func busAt(srv *httptest.Server) *selfBus {
	b := newSelfBus("http://127.0.0.1:1", "/actbridge")
	b.addr = strings.TrimPrefix(srv.URL, "http://") // the node nil stands for is "ours"
	return b
}

// TestSelfBusKeepsItsConnection: counts reuse one connection to the node
// (a dial per count cost a confirm ~0.5 ms of CPU), and still count
// right after the node dropped it.
func TestSelfBusKeepsItsConnection(t *testing.T) {
	srv, conns := fakeSlave(t)
	b := busAt(srv)
	for i := range 5 {
		n, err := b.count(nil, "/arm/goal")
		if err != nil || n != 1 {
			t.Fatalf("count %d: %d subscribers, %v; want 1", i, n, err)
		}
	}
	if c := conns.Load(); c != 1 {
		t.Errorf("5 counts opened %d connections, want 1 kept", c)
	}
	srv.CloseClientConnections() // the node closes what it holds
	if n, err := b.count(nil, "/arm/goal"); err != nil || n != 1 {
		t.Fatalf("count after the node closed the connection: %d, %v", n, err)
	}
	if m, err := b.outbound(nil); err != nil || m["/arm/status"] != 0 || len(m) != 1 {
		t.Errorf("outbound = %v, %v: inbound links are not counted", m, err)
	}
}
