package param

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/actbridge/actbridge/cdr"
	"github.com/actbridge/actbridge/msgs/ros2"
	"github.com/actbridge/actbridge/ros2/names"
	"github.com/actbridge/actbridge/ros2/qos"
	"github.com/actbridge/actbridge/ros2/service"
	"github.com/actbridge/actbridge/rtps"
)

// The services a Server adds to those the Client calls.
const (
	setAtomicallyService = "set_parameters_atomically"
	typesService         = "get_parameter_types"
)

// ServerOptions tune a Server.
type ServerOptions struct {
	// Service tunes the six services; its Endpoints hook and Logger also
	// see the /parameter_events writer.
	Service service.Options
	// OnSet, when set, may refuse a set that passed the declarations'
	// checks, as rclcpp's on-set-parameters callbacks do; it sees the
	// parameters of one set (several for set_parameters_atomically).
	OnSet func(params []Parameter) SetResult
}

// Server serves a node's parameters through the six rcl_interfaces
// services, as rclcpp does without undeclared parameters: get, describe
// and get_parameter_types answer nothing when a name is not declared;
// set refuses an undeclared, a read-only, a type-changing or an
// out-of-range value with rclcpp's reasons. Each change is published on
// /parameter_events. An rclcpp node also declares use_sim_time (bool,
// false); declare it too when playing one. Close it to withdraw it.
type Server struct {
	node  string
	o     ServerOptions
	types map[string]service.Types

	paramT, valueT, descT, eventT *cdr.Struct
	events                        *rtps.Writer
	eventsData                    rtps.EndpointData
	services                      []*service.Server

	mu     sync.Mutex
	params map[string]*Declaration // current values in Value
}

// NewServer serves node's (fully qualified, "/arm/controller")
// parameters decls and publishes them as new on /parameter_events.
func NewServer(p *rtps.Participant, set *msgs.Set, node string, decls []Declaration, o ServerOptions) (*Server, error) {
	if err := names.ValidateFullName(node); err != nil {
		return nil, err
	}
	if o.Service.Logger == nil {
		o.Service.Logger = slog.New(slog.DiscardHandler)
	}
	s := &Server{node: node, o: o, types: map[string]service.Types{}, params: map[string]*Declaration{}}
	for _, d := range decls {
		t, err := d.Value.Type()
		if err != nil {
			return nil, fmt.Errorf("parameter %q: %w", d.Name, err)
		}
		if d.Name == "" || s.params[d.Name] != nil || t == NotSet && !d.DynamicTyping {
			return nil, fmt.Errorf("%w: %q (empty, declared twice, or statically typed without a value)", ErrDeclaration, d.Name)
		}
		s.params[d.Name] = &d
	}
	err := s.resolve(set)
	if err != nil {
		return nil, err
	}
	topic, _ := names.TopicDDS(EventsTopic)
	typ, _ := names.TypeDDS("rcl_interfaces/msg/ParameterEvent")
	ud := service.TypeHashUserData(set, "rcl_interfaces/msg/ParameterEvent")
	if s.events, s.eventsData, err = o.Service.Endpoints.NewWriter(p, rtps.EndpointData{Topic: topic, Type: typ, QoS: qos.ParameterEvents.QoS, UserData: ud}); err != nil {
		return nil, err
	}
	ok := false
	defer func() {
		if !ok {
			s.Close()
		}
	}()
	for _, sv := range []struct {
		name, typ string
		h         func(req, rep *cdr.Message)
	}{
		{listService, "rcl_interfaces/srv/ListParameters", s.list},
		{getService, "rcl_interfaces/srv/GetParameters", s.get},
		{typesService, "rcl_interfaces/srv/GetParameterTypes", s.getTypes},
		{setService, "rcl_interfaces/srv/SetParameters", s.set},
		{setAtomicallyService, "rcl_interfaces/srv/SetParametersAtomically", s.setAtomically},
		{describeService, "rcl_interfaces/srv/DescribeParameters", s.describe},
	} {
		srv, ty, err := serve(p, set, node+"/"+sv.name, sv.typ, sv.h, o.Service)
		if err != nil {
			return nil, err
		}
		s.types[sv.name] = ty
		s.services = append(s.services, srv)
	}
	ok = true
	s.mu.Lock()
	var all []Parameter
	for _, n := range s.sortedNames() {
		all = append(all, Parameter{n, s.params[n].Value})
	}
	s.publish(all, nil, nil)
	s.mu.Unlock()
	return s, nil
}

// resolve looks up the messages the server builds replies and events of.
func (s *Server) resolve(set *msgs.Set) error {
	var err error
	for _, t := range []struct {
		dst  **cdr.Struct
		name string
	}{{&s.paramT, "rcl_interfaces/msg/Parameter"}, {&s.valueT, "rcl_interfaces/msg/ParameterValue"},
		{&s.descT, "rcl_interfaces/msg/ParameterDescriptor"}, {&s.eventT, "rcl_interfaces/msg/ParameterEvent"}} {
		if *t.dst, err = set.Struct(t.name); err != nil {
			return err
		}
	}
	return nil
}

// serve serves the service name of type typ with h, which fills in the
// zero reply it is given.
func serve(p *rtps.Participant, set *msgs.Set, name, typ string, h func(req, rep *cdr.Message), o service.Options) (*service.Server, service.Types, error) {
	ty, err := service.ResolveTypes(set, typ)
	if err != nil {
		return nil, ty, err
	}
	srv, err := service.NewServer(p, ty, name, func(_ context.Context, req *cdr.Message) (*cdr.Message, error) {
		rep := cdr.Zero(ty.Response)
		h(req, rep)
		return rep, nil
	}, o)
	return srv, ty, err
}

// Close withdraws the server.
func (s *Server) Close() error {
	var errs []error
	for _, sv := range s.services {
		errs = append(errs, sv.Close())
	}
	s.services = nil
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.events != nil {
		s.o.Service.Endpoints.Withdrawn(s.eventsData)
		errs = append(errs, s.events.Close())
		s.events = nil // later sets change values, unpublished
	}
	return errors.Join(errs...)
}

// Get returns a parameter's value now.
func (s *Server) Get(name string) (Value, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d, ok := s.params[name]
	if !ok {
		return Value{}, false
	}
	return d.Value, true
}

// Set sets parameters one by one as a remote set_parameters does, with
// the same checks, events and answers.
func (s *Server) Set(params ...Parameter) []SetResult {
	out := make([]SetResult, len(params))
	for i, p := range params {
		out[i] = s.apply([]Parameter{p}, false)
	}
	return out
}

// sortedNames are the declared names in order, as rclcpp's map keeps
// them; s.mu held.
func (s *Server) sortedNames() []string {
	ns := make([]string, 0, len(s.params))
	for n := range s.params {
		ns = append(ns, n)
	}
	slices.Sort(ns)
	return ns
}

// list follows rclcpp's list_parameters: names under the prefixes (all
// when none) with fewer than depth dots below them (0: any), and the
// prefixes of the names listed.
func (s *Server) list(req, rep *cdr.Message) {
	prefixes, _ := req.Get("prefixes").([]string)
	depth, _ := req.Get("depth").(uint64)
	shallow := func(n string) bool { return depth == 0 || uint64(strings.Count(n, ".")) < depth }
	s.mu.Lock()
	var listed, dirs []string
	for _, n := range s.sortedNames() {
		match := len(prefixes) == 0 && shallow(n)
		for _, p := range prefixes {
			match = match || n == p || strings.HasPrefix(n, p+".") && shallow(n[len(p)+1:])
		}
		if !match {
			continue
		}
		listed = append(listed, n)
		if i := strings.LastIndexByte(n, '.'); i >= 0 && !slices.Contains(dirs, n[:i]) {
			dirs = append(dirs, n[:i])
		}
	}
	s.mu.Unlock()
	res := rep.Get("result").(*cdr.Message)
	res.Set("names", append([]string{}, listed...))
	res.Set("prefixes", append([]string{}, dirs...))
}

// declared returns the declarations of names, or nil if one is not
// declared (rclcpp then answers nothing); s.mu held.
func (s *Server) declared(req *cdr.Message) []*Declaration {
	ns, _ := req.Get("names").([]string)
	out := make([]*Declaration, len(ns))
	for i, n := range ns {
		if out[i] = s.params[n]; out[i] == nil {
			return nil
		}
	}
	return out
}

func (s *Server) get(req, rep *cdr.Message) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ds := s.declared(req)
	vs := make([]*cdr.Message, 0, len(ds))
	for _, d := range ds {
		m, err := d.Value.message(s.valueT)
		if err != nil {
			m = cdr.Zero(s.valueT)
		}
		vs = append(vs, m)
	}
	rep.Set("values", vs)
}

func (s *Server) getTypes(req, rep *cdr.Message) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ds := s.declared(req)
	ts := make([]uint8, 0, len(ds))
	for _, d := range ds {
		t, _ := d.Value.Type()
		ts = append(ts, uint8(t))
	}
	rep.Set("types", ts)
}

func (s *Server) describe(req, rep *cdr.Message) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ds := s.declared(req)
	out := make([]*cdr.Message, 0, len(ds))
	for _, d := range ds {
		out = append(out, d.descriptorMessage(s.descT))
	}
	rep.Set("descriptors", out)
}

func (s *Server) set(req, rep *cdr.Message) {
	ps, reason := s.parameters(req)
	rs := cdr.MakeSlice(rep.Type.Field(rep.Type.FieldIndex("results")).Type, len(ps)).([]*cdr.Message)
	for i, p := range ps {
		r := SetResult{Reason: reason[i]}
		if r.Reason == "" {
			r = s.apply([]Parameter{p}, false)
		}
		rs[i].Set("successful", r.Successful)
		rs[i].Set("reason", r.Reason)
	}
	rep.Set("results", rs)
}

func (s *Server) setAtomically(req, rep *cdr.Message) {
	ps, reasons := s.parameters(req)
	r := SetResult{}
	for _, why := range reasons {
		if why != "" && r.Reason == "" {
			r.Reason = why
		}
	}
	if r.Reason == "" {
		r = s.apply(ps, true)
	}
	res := rep.Get("result").(*cdr.Message)
	res.Set("successful", r.Successful)
	res.Set("reason", r.Reason)
}

// parameters reads a set request's parameters; a value that does not
// read has its refusal in reasons.
func (s *Server) parameters(req *cdr.Message) (ps []Parameter, reasons []string) {
	ms, _ := req.Get("parameters").([]*cdr.Message)
	ps, reasons = make([]Parameter, len(ms)), make([]string, len(ms))
	for i, m := range ms {
		var err error
		if ps[i], err = parameterOf(m); err != nil {
			reasons[i] = err.Error()
		}
	}
	return ps, reasons
}

// apply sets ps all or none, in rclcpp's order of checks: declared and
// writable, no static parameter unset, then type and range, then OnSet.
// atomic says the request was set_parameters_atomically, whose refusal
// of an undeclared name is worded apart.
func (s *Server) apply(ps []Parameter, atomic bool) SetResult {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range ps {
		d := s.params[p.Name]
		switch {
		case p.Name == "":
			return SetResult{Reason: "parameter name must not be empty"}
		case d == nil && atomic:
			return SetResult{Reason: "One or more parameters were not declared before setting"}
		case d == nil:
			return SetResult{Reason: fmt.Sprintf("parameter '%s' cannot be set because it was not declared", p.Name)}
		case d.ReadOnly:
			return SetResult{Reason: fmt.Sprintf("parameter '%s' cannot be set because it is read-only", p.Name)}
		}
	}
	for _, p := range ps {
		if p.Value.V == nil && !s.params[p.Name].DynamicTyping {
			return SetResult{Reason: "cannot undeclare a statically typed parameter"}
		}
	}
	for _, p := range ps {
		if p.Value.V == nil {
			continue
		}
		if why := s.params[p.Name].check(p.Value); why != "" {
			return SetResult{Reason: why}
		}
	}
	if s.o.OnSet != nil {
		if r := s.o.OnSet(ps); !r.Successful {
			return r
		}
	}
	var changed, deleted []Parameter
	for _, p := range ps {
		if p.Value.V == nil {
			delete(s.params, p.Name)
			deleted = append(deleted, p)
			continue
		}
		s.params[p.Name].Value = p.Value
		changed = append(changed, p)
	}
	s.publish(nil, changed, deleted)
	return SetResult{Successful: true}
}

// publish writes a ParameterEvent of this node, unless closed; s.mu
// held.
func (s *Server) publish(fresh, changed, deleted []Parameter) {
	if s.events == nil {
		return
	}
	ev := cdr.Zero(s.eventT)
	ev.Set("node", s.node)
	stamp := ev.Get("stamp").(*cdr.Message)
	now := time.Now().UnixNano()
	stamp.Set("sec", int32(now/1e9))
	stamp.Set("nanosec", uint32(now%1e9))
	for _, f := range []struct {
		name string
		ps   []Parameter
	}{{"new_parameters", fresh}, {"changed_parameters", changed}, {"deleted_parameters", deleted}} {
		ms := make([]*cdr.Message, 0, len(f.ps))
		for _, p := range f.ps {
			m := cdr.Zero(s.paramT)
			m.Set("name", p.Name)
			if v, err := p.Value.message(s.valueT); err == nil {
				m.Set("value", v)
			}
			ms = append(ms, m)
		}
		ev.Set(f.name, ms)
	}
	b, err := cdr.Encode(ev, cdr.LittleEndian)
	if err == nil {
		err = s.events.Write(cdr.Pad(b), nil)
	}
	if err != nil {
		s.o.Service.Logger.Warn("param: event not published", "node", s.node, "err", err)
	}
}
