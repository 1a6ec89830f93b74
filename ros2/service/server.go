package service

import (
	"context"
	"fmt"
	"slices"

	"github.com/actbridge/actbridge/cdr"
	"github.com/actbridge/actbridge/ros2/names"
	"github.com/actbridge/actbridge/rtps"
	"github.com/actbridge/actbridge/rtps/wire"
)

// Handler answers one request. An error sends no reply (a ROS 2 service
// has no error reply); the client's call then times out.
type Handler func(ctx context.Context, req *cdr.Message) (*cdr.Message, error)

// Replier sends the reply to one request, framed for its client; call it
// at most once, from any goroutine. Its error is also logged.
type Replier func(rep *cdr.Message) error

// DeferredHandler takes one request and answers it through reply, now or
// later, or never (the client's call then times out). It must not block:
// requests are taken one at a time. An action's get_result, answered when
// its goal ends, needs this.
type DeferredHandler func(ctx context.Context, req *cdr.Message, reply Replier)

// Server answers a service's requests one at a time, each in the dialect
// of the requesting client's vendor. A request framed wrongly for that
// dialect is refused (logged), never answered. Close it to withdraw it.
type Server struct {
	e     *endpoints
	types Types
	h     DeferredHandler
	stop  context.CancelFunc
	done  chan struct{}
}

// NewServer serves the service named service (fully expanded) with h.
func NewServer(p *rtps.Participant, types Types, service string, h Handler, o Options) (*Server, error) {
	logger := o.withDefaults().Logger
	return NewDeferredServer(p, types, service, func(ctx context.Context, req *cdr.Message, reply Replier) {
		rep, err := h(ctx, req)
		if err != nil {
			logger.Warn("service: handler failed, no reply", "service", service, "err", err)
			return
		}
		reply(rep)
	}, o)
}

// NewDeferredServer serves the service named service with h, whose
// replies may come after it returns.
func NewDeferredServer(p *rtps.Participant, types Types, service string, h DeferredHandler, o Options) (*Server, error) {
	o = o.withDefaults()
	rq, rr, err := names.ServiceDDS(service)
	if err != nil {
		return nil, err
	}
	e, err := newEndpoints(p, o, "serviceid", rr, types.ResponseDDS, rq, types.RequestDDS, types.UserData)
	if err != nil {
		return nil, err
	}
	ctx, stop := context.WithCancel(context.Background())
	s := &Server{e: e, types: types, h: h, stop: stop, done: make(chan struct{})}
	go s.run(ctx)
	return s, nil
}

// Close withdraws the server, after the request in hand (its handler sees
// its context end).
func (s *Server) Close() error {
	s.stop()
	<-s.done
	return s.e.close()
}

// GUIDs are the server's reply writer and request reader.
func (s *Server) GUIDs() (writer, reader wire.GUID) { return s.e.w.GUID(), s.e.r.GUID() }

// request is one request as received, with what its reply must carry.
type request struct {
	sample  rtps.Sample
	dialect Dialect
	header  RequestHeader  // Cyclone
	related SampleIdentity // FastDDS: what the reply names
	body    []byte
}

func (s *Server) run(ctx context.Context) {
	defer close(s.done)
	for {
		smp, err := s.e.r.Take(ctx)
		if err != nil {
			return
		}
		req, err := s.parse(smp)
		if err != nil {
			s.e.o.Logger.Warn("service: request refused", "writer", smp.Writer, "err", err)
			continue
		}
		msg, err := cdr.Decode(s.types.Request, req.body)
		if err != nil {
			s.e.o.Logger.Warn("service: request undecodable", "writer", smp.Writer, "dialect", req.dialect, "err", err)
			continue
		}
		s.h(ctx, msg, func(rep *cdr.Message) error {
			err := s.reply(ctx, req, rep)
			if err != nil {
				s.e.o.Logger.Warn("service: reply dropped", "writer", smp.Writer, "err", err)
			}
			return err
		})
	}
}

// parse reads a request in the dialect of its writer's vendor.
func (s *Server) parse(smp rtps.Sample) (request, error) {
	vendor := vendorOf(s.e.p, smp.Writer.Prefix)
	req := request{sample: smp, dialect: s.e.o.Dialect.resolve(vendor)}
	switch req.dialect {
	case Cyclone:
		h, body, err := ParseCycloneFrame(smp.Payload)
		if err != nil {
			return req, err
		}
		req.header, req.body = h, body
	default:
		// rmw_fastrtps clients (and DDS-RPC ones) always name their
		// reply reader; a request without it is most likely another
		// dialect's (a Cyclone header would be read as message fields).
		id, ok, err := ParseSampleIdentity(smp, vendor)
		if err != nil {
			return req, err
		}
		if !ok || id.Writer == (wire.GUID{}) {
			return req, fmt.Errorf("%w: no related sample identity naming the client", ErrFrame)
		}
		req.related = SampleIdentity{Writer: id.Writer, SN: smp.SN}
		req.body = smp.Payload
	}
	return req, nil
}

// reply waits (up to ReplyWait) for the client's reply reader to match
// our writer, then writes the reply framed as the request was: the reply
// writer sends only to matched readers, so an early reply would be lost.
// A reader that has not ACKNACKed us may not have matched us yet (see
// rtps.Writer.Heard), so that is waited for too, within the same bound.
func (s *Server) reply(ctx context.Context, req request, rep *cdr.Message) error {
	if rep == nil || rep.Type != s.types.Response {
		return fmt.Errorf("service: handler returned no %s", s.types.Response.Name())
	}
	body, err := cdr.Encode(rep, cdr.LittleEndian)
	if err != nil {
		return err
	}
	wctx, cancel := context.WithTimeout(ctx, s.e.o.ReplyWait)
	defer cancel()
	if err := s.waitClientReader(wctx, req); err != nil {
		return err
	}
	if req.dialect == Cyclone {
		payload, err := AppendCycloneFrame(nil, req.header, body)
		if err != nil {
			return err
		}
		return s.e.w.Write(cdr.Pad(payload), nil)
	}
	return s.e.w.Write(cdr.Pad(body), req.related.InlineQoS())
}

// waitClientReader waits until our writer matches the reader the reply
// is for: the one the sample identity names, or for a Cyclone client the
// reader whose clientid equals its request writer's (any of its
// participant's when it announced none).
func (s *Server) waitClientReader(ctx context.Context, req request) error {
	// A client named by its writer (old Fast DDS) has its reader in the
	// same participant.
	want := func(g wire.GUID) bool { return g.Prefix == req.sample.Writer.Prefix }
	switch {
	case req.dialect == FastDDS && req.related.Writer.Entity.IsReader():
		want = func(g wire.GUID) bool { return g == req.related.Writer }
	case req.dialect == Cyclone:
		if id, ok := s.endpointUserValue(req.sample.Writer, "clientid"); ok {
			want = func(g wire.GUID) bool {
				v, ok := s.endpointUserValue(g, "clientid")
				return ok && v == id && g.Prefix == req.sample.Writer.Prefix
			}
		}
	}
	var reader wire.GUID
	_, err := s.e.p.WaitParticipants(ctx, func([]rtps.ParticipantData) bool {
		m := s.e.w.Matched() // once: a reader may leave between two calls
		i := slices.IndexFunc(m, want)
		if i >= 0 {
			reader = m[i]
		}
		return i >= 0
	})
	if err != nil {
		return fmt.Errorf("client's reply reader not matched: %w", err)
	}
	// Clients wait for their reader to match us before calling, so it
	// has normally told us already; if it has not within the wait, the
	// reply goes anyway rather than not at all.
	s.e.p.WaitParticipants(ctx, func([]rtps.ParticipantData) bool { return s.e.w.Heard(reader) })
	return nil
}

// endpointUserValue reads key from a remote endpoint's user data.
func (s *Server) endpointUserValue(g wire.GUID, key string) (string, bool) {
	for _, e := range s.e.p.Endpoints() {
		if e.GUID == g {
			return userValue(e.UserData, key)
		}
	}
	return "", false
}
