package roslink

import (
	"fmt"
	"net/http"
	"time"

	"github.com/bluenviron/goroslib/v2/pkg/apimaster"
	"github.com/bluenviron/goroslib/v2/pkg/xmlrpc"
)

// probeTimeout bounds one call to the master, so a hung master cannot stall
// the watch loop or Close for long.
const probeTimeout = 2 * time.Second

// masterProbe asks the master the two questions that reveal a restart:
// its pid, and which URI it has for our node.
type masterProbe struct {
	address  string
	callerID string
	xc       *xmlrpc.Client
}

func newMasterProbe(address, callerID string) *masterProbe {
	// No keep-alive: a connection kept from before a restart would make the
	// first call after it fail for nothing.
	hc := &http.Client{
		Timeout:   probeTimeout,
		Transport: &http.Transport{DisableKeepAlives: true},
	}
	return &masterProbe{address: address, callerID: callerID, xc: xmlrpc.NewClient(address, hc)}
}

type getPidReq struct{ CallerID string }

type getPidRes struct {
	Code          int
	StatusMessage string
	Pid           int
}

// pid returns the master's process id; an error wraps ErrMasterUnreachable.
func (p *masterProbe) pid() (int, error) {
	var res getPidRes
	if err := p.xc.Do("getPid", getPidReq{CallerID: p.callerID}, &res); err != nil {
		return 0, fmt.Errorf("%w at %s: %v", ErrMasterUnreachable, p.address, err)
	}
	if res.Code != 1 {
		return 0, fmt.Errorf("master at %s: getPid: code %d: %s", p.address, res.Code, res.StatusMessage)
	}
	return res.Pid, nil
}

// lookupNode returns the slave API URI the master has for name; known is
// false when the master has no such node (it answers code -1).
func (p *masterProbe) lookupNode(name string) (uri string, known bool, err error) {
	var res apimaster.ResponseLookup
	err = p.xc.Do("lookupNode", apimaster.RequestLookup{CallerID: p.callerID, Name: name}, &res)
	if err != nil {
		return "", false, fmt.Errorf("%w at %s: %v", ErrMasterUnreachable, p.address, err)
	}
	if res.Code != 1 {
		return "", false, nil
	}
	return res.URL, true, nil
}
