package service

import (
	"bytes"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/actbridge/actbridge/cdr"
	"github.com/actbridge/actbridge/msgs/ros2"
	"github.com/actbridge/actbridge/ros2/names"
	"github.com/actbridge/actbridge/ros2/qos"
	"github.com/actbridge/actbridge/rtps"
	"github.com/actbridge/actbridge/rtps/wire"
)

// Options tune a Client or Server; the zero value is ROS 2's defaults.
type Options struct {
	// QoS of both endpoints; zero means qos.Services.
	QoS rtps.QoS
	// Dialect forces one dialect whatever the peer's vendor; Auto (zero)
	// picks per peer.
	Dialect Dialect
	// Endpoints, when set, is told of each endpoint made and withdrawn,
	// for a node's ros_discovery_info.
	Endpoints EndpointHook
	// ReplyWait bounds how long a server waits for a client's reply
	// reader to match before dropping a reply (rmw waits 100 ms or the
	// writer's max blocking time); default 1 s.
	ReplyWait time.Duration
	// Logger gets the frames refused and replies dropped; nil: none.
	Logger *slog.Logger
}

func (o Options) withDefaults() Options {
	if o.QoS == (rtps.QoS{}) {
		o.QoS = qos.Services.QoS
	}
	if o.ReplyWait <= 0 {
		o.ReplyWait = time.Second
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o
}

// EndpointHook is told of an endpoint once made (added true; e carries
// its GUID) and before it is withdrawn (false), so that a node lists it
// in ros_discovery_info (ros2/node's Register and Unregister fit). An
// error when adding fails the creation; one when withdrawing is ignored.
type EndpointHook func(e rtps.EndpointData, added bool) error

// NewReader makes a reader on p and tells h of it (h may be nil).
func (h EndpointHook) NewReader(p *rtps.Participant, e rtps.EndpointData) (*rtps.Reader, rtps.EndpointData, error) {
	r, err := p.NewReader(e)
	if err != nil {
		return nil, e, err
	}
	e.GUID = r.GUID()
	if err := h.added(e); err != nil {
		r.Close()
		return nil, e, err
	}
	return r, e, nil
}

// NewWriter makes a writer on p and tells h of it (h may be nil).
func (h EndpointHook) NewWriter(p *rtps.Participant, e rtps.EndpointData) (*rtps.Writer, rtps.EndpointData, error) {
	e.Writer = true
	w, err := p.NewWriter(e)
	if err != nil {
		return nil, e, err
	}
	e.GUID = w.GUID()
	if err := h.added(e); err != nil {
		w.Close()
		return nil, e, err
	}
	return w, e, nil
}

func (h EndpointHook) added(e rtps.EndpointData) error {
	if h == nil {
		return nil
	}
	return h(e, true)
}

// Withdrawn tells h that e is about to be withdrawn.
func (h EndpointHook) Withdrawn(e rtps.EndpointData) {
	if h != nil {
		h(e, false)
	}
}

// Types are the request and response types of a service type: "pkg/srv/X"
// or an action's "pkg/action/X_SendGoal" and "…_GetResult".
type Types struct {
	Request, Response       *cdr.Struct
	RequestDDS, ResponseDDS string
	// UserData is the service type's hash as TypeHashUserData gives it.
	UserData []byte
}

// TypeHashUserData is the endpoint user data rmw announces a type's
// RIHS01 hash in ("typehash=RIHS01_…;"), nil on Humble (whose rmw sends
// none) or when the set cannot hash typ.
func TypeHashUserData(set *msgs.Set, typ string) []byte {
	if set.Distro == msgs.Humble {
		return nil
	}
	h, err := set.TypeHash(typ)
	if err != nil {
		return nil
	}
	return []byte("typehash=" + h + ";")
}

// ResolveTypes looks srvType up in set. A Set is not safe for concurrent
// use: resolve before sharing it.
func ResolveTypes(set *msgs.Set, srvType string) (Types, error) {
	var t Types
	var err error
	if t.Request, err = set.Struct(srvType + "_Request"); err != nil {
		return t, err
	}
	if t.Response, err = set.Struct(srvType + "_Response"); err != nil {
		return t, err
	}
	if t.RequestDDS, t.ResponseDDS, err = names.ServiceTypesDDS(srvType); err != nil {
		return t, err
	}
	t.UserData = TypeHashUserData(set, srvType)
	return t, nil
}

// endpoints are a service's two DDS endpoints, as one side makes them.
type endpoints struct {
	p      *rtps.Participant
	w      *rtps.Writer
	r      *rtps.Reader
	wd, rd rtps.EndpointData // as announced, for the hook
	o      Options
	userID string // the value of clientid= or serviceid=
}

// newEndpoints makes the writer of topic wt (type wtype) and the reader
// of rt (rtype), both with user data "<idKey>=<id>;" and hashUD.
func newEndpoints(p *rtps.Participant, o Options, idKey, wt, wtype, rt, rtype string, hashUD []byte) (*endpoints, error) {
	var raw [16]byte
	pg := p.GUID().Prefix
	copy(raw[:], pg[:])
	if _, err := rand.Read(raw[12:]); err != nil {
		return nil, err
	}
	e := &endpoints{p: p, o: o, userID: dotted(raw[:])}
	ud := append([]byte(idKey+"="+e.userID+";"), hashUD...)
	var err error
	if e.r, e.rd, err = o.Endpoints.NewReader(p, rtps.EndpointData{Topic: rt, Type: rtype, QoS: o.QoS, UserData: ud}); err != nil {
		return nil, err
	}
	if e.w, e.wd, err = o.Endpoints.NewWriter(p, rtps.EndpointData{Topic: wt, Type: wtype, QoS: o.QoS, UserData: ud}); err != nil {
		o.Endpoints.Withdrawn(e.rd)
		e.r.Close()
		return nil, err
	}
	return e, nil
}

// close withdraws both endpoints.
func (e *endpoints) close() error {
	e.o.Endpoints.Withdrawn(e.rd)
	e.o.Endpoints.Withdrawn(e.wd)
	return errors.Join(e.w.Close(), e.r.Close())
}

// dotted formats octets as rmw_cyclonedds formats its client and service
// ids: hex octets joined by dots.
func dotted(b []byte) string {
	var s strings.Builder
	for i, c := range b {
		if i > 0 {
			s.WriteByte('.')
		}
		fmt.Fprintf(&s, "%02x", c)
	}
	return s.String()
}

// userValue returns the value of key in rmw's "k=v;k=v;" user data.
func userValue(ud []byte, key string) (string, bool) {
	for kv := range bytes.SplitSeq(ud, []byte{';'}) {
		if k, v, ok := bytes.Cut(kv, []byte{'='}); ok && string(k) == key {
			return string(v), true
		}
	}
	return "", false
}

// vendorOf is the vendor of a remote participant, VendorUnknown when it
// is not known (any more).
func vendorOf(p *rtps.Participant, prefix wire.GUIDPrefix) wire.VendorID {
	for _, d := range p.Participants() {
		if d.Prefix == prefix {
			return d.Vendor
		}
	}
	return wire.VendorUnknown
}
