package ros2

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/cdr"
	"github.com/actbridge/actbridge/msgs/ros2"
	"github.com/actbridge/actbridge/ros2/graph"
	"github.com/actbridge/actbridge/ros2/msgdef"
	"github.com/actbridge/actbridge/ros2/names"
	"github.com/actbridge/actbridge/ros2/param"
	"github.com/actbridge/actbridge/ros2/service"
	"github.com/actbridge/actbridge/rtps/wire"
)

// MaxServiceTimeout bounds one CallService.
const MaxServiceTimeout = time.Minute

// access is what the topic, parameter and service calls keep between
// calls, made on first use: the distro's catalogue, a parameter client
// per node (at most maxParamClients) and a service client per service and
// type (at most maxServiceClients). Robot.Close closes it.
type access struct {
	once sync.Once
	cat  *catalogue
	err  error

	mu     sync.Mutex
	set    *msgs.Set // a Set is not safe for concurrent use: under mu
	params map[string]*param.Client
	// services are the service clients kept between calls, by name and
	// request type: a kept client's endpoints are known to the servers
	// already (a call waits for no matching), and a Discovery Server's
	// restart does not hide them from nodes that were up before it
	// (docs/discovery-server.md).
	services map[serviceKey]*service.Client
	closed   bool

	learned learnedTypes // service types learned from nodes (typedesc.go)
}

// catalogue is a distro's message and service types, resolved once.
type catalogue struct {
	messages []string                 // every "pkg/msg/X", sorted
	services []actuators.ServiceType  // every "pkg/srv/X" with its fields, sorted by name
	types    map[string]service.Types // by service type
	// moveitCodes names MoveItErrorCodes' values, for a planner's refusal.
	moveitCodes map[int32]string
}

// loadCatalogue lists and resolves every message and service type of d.
func loadCatalogue(d msgs.Distro) (*catalogue, error) {
	set, err := msgs.Load(d)
	if err != nil {
		return nil, err
	}
	c := &catalogue{types: map[string]service.Types{}}
	for _, n := range set.Names() {
		switch {
		case strings.Contains(n, "/msg/"):
			c.messages = append(c.messages, n)
		case strings.Contains(n, "/srv/") && strings.HasSuffix(n, "_Request"):
			srv := strings.TrimSuffix(n, "_Request")
			t, err := service.ResolveTypes(set, srv)
			if err != nil {
				return nil, fmt.Errorf("ros2: %s service %s: %w", d, srv, err)
			}
			c.types[srv] = t
			c.services = append(c.services, serviceType(srv, t))
		}
	}
	if d := set.Definition("moveit_msgs/msg/MoveItErrorCodes"); d != nil {
		c.moveitCodes = map[int32]string{}
		for _, k := range d.Constants {
			if v, ok := k.Value.(int32); ok {
				c.moveitCodes[v] = k.Name
			}
		}
	}
	for _, typ := range callableActions() {
		if set.Definition(typ+"_Goal") == nil {
			continue // not in this distro's set
		}
		t, err := actionServiceType(set, typ)
		if err != nil {
			return nil, fmt.Errorf("ros2: %s action %s: %w", d, typ, err)
		}
		c.services = append(c.services, t)
	}
	// By service name: X_Request's order puts XAtomically before X.
	slices.SortFunc(c.services, byName)
	return c, nil
}

// SampleTypesOf lists the message types the transport decodes on d, for
// a catalogue made without a robot.
func SampleTypesOf(d msgs.Distro) ([]string, error) {
	c, err := loadCatalogue(d)
	if err != nil {
		return nil, err
	}
	return c.messages, nil
}

// ServiceTypesOf lists the service types the transport calls on d, for a
// catalogue made without a robot.
func ServiceTypesOf(d msgs.Distro) ([]actuators.ServiceType, error) {
	c, err := loadCatalogue(d)
	if err != nil {
		return nil, err
	}
	return c.services, nil
}

// fields lists a struct's fields with their types in ROS form: a scalar
// ("bool", "float64", "uint8" for byte and char), "string", a nested
// type ("rcl_interfaces/msg/Parameter"), with "[]", "[<=N]" or "[N]" for
// sequences and arrays. The dummy member of an empty type is left out.
func fields(s *cdr.Struct) []actuators.ServiceField {
	out := []actuators.ServiceField{}
	for i := range s.NumField() {
		f := s.Field(i)
		if f.Name == msgdef.DummyField {
			continue
		}
		out = append(out, actuators.ServiceField{Name: f.Name, Type: fieldType(f.Type)})
	}
	return out
}

// nested defines every message type the structs nest, at any depth, by
// the name fields gives it, so the tool layer can check a nested request
// (rcl_interfaces/srv/SetParameters) against a closed schema; nil when
// they are flat.
func nested(structs ...*cdr.Struct) map[string][]actuators.ServiceField {
	var out map[string][]actuators.ServiceField
	var walk func(s *cdr.Struct)
	walk = func(s *cdr.Struct) {
		for i := range s.NumField() {
			t := s.Field(i).Type
			if t.Kind != cdr.StructKind {
				continue
			}
			if _, seen := out[t.Struct.Name()]; seen {
				continue
			}
			if out == nil {
				out = map[string][]actuators.ServiceField{}
			}
			out[t.Struct.Name()] = fields(t.Struct)
			walk(t.Struct)
		}
	}
	for _, s := range structs {
		walk(s)
	}
	return out
}

// serviceType is a service type as the tool layer sees it: its request
// and response fields, and the messages they nest (see nested).
func serviceType(name string, t service.Types) actuators.ServiceType {
	return actuators.ServiceType{Name: name, Request: fields(t.Request), Response: fields(t.Response), Messages: nested(t.Request, t.Response)}
}

func fieldType(t cdr.Type) string {
	var base string
	switch t.Kind {
	case cdr.Byte, cdr.Char:
		base = "uint8"
	case cdr.String, cdr.WString:
		base = "string"
	case cdr.StructKind:
		base = t.Struct.Name()
	default:
		base = t.Kind.String()
	}
	switch {
	case t.Collection == cdr.Array:
		return fmt.Sprintf("%s[%d]", base, t.Len)
	case t.Collection == cdr.Sequence && t.Len > 0:
		return fmt.Sprintf("%s[<=%d]", base, t.Len)
	case t.Collection == cdr.Sequence:
		return base + "[]"
	}
	return base
}

// types returns the catalogue of d, loading it on the first call.
func (a *access) types(d msgs.Distro) (*catalogue, error) {
	a.once.Do(func() { a.cat, a.err = loadCatalogue(d) })
	return a.cat, a.err
}

// close closes the kept clients; later calls fail with ErrClosed.
func (a *access) close() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.closed = true
	var errs []error
	for _, c := range a.params {
		errs = append(errs, c.Close())
	}
	for _, c := range a.services {
		errs = append(errs, c.Close())
	}
	a.params, a.services = nil, nil
	return errors.Join(errs...)
}

// maxServiceClients bounds the service clients kept between calls; past
// it a client is made for one call and closed. service_call reaches only
// the allowlisted services, so a robot's calls stay well under it.
const maxServiceClients = 64

// serviceKey names a kept service client: the service and its request's
// DDS type (a server retyped under the same name gets another client).
type serviceKey struct{ name, request string }

// serviceClient returns the kept client of name with types, or makes one
// and keeps it while fewer than maxServiceClients are kept; kept false
// means the caller closes it after its call.
func (a *access) serviceClient(name string, types service.Types, newClient func() (*service.Client, error)) (*service.Client, bool, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return nil, false, actuators.ErrClosed
	}
	k := serviceKey{name, types.RequestDDS}
	if c := a.services[k]; c != nil {
		return c, true, nil
	}
	c, err := newClient()
	if err != nil {
		return nil, false, err
	}
	if len(a.services) >= maxServiceClients {
		return c, false, nil
	}
	if a.services == nil {
		a.services = map[serviceKey]*service.Client{}
	}
	a.services[k] = c
	return c, true, nil
}

// Services lists the graph's services that have a server, with the nodes
// serving them, sorted by name; hidden services (an action's) are left out.
func (r *Robot) Services(context.Context) ([]actuators.ServiceInfo, error) {
	g := r.rctx.Graph()
	out := []actuators.ServiceInfo{}
	for _, s := range g.Services {
		if len(s.Servers) == 0 || names.IsHidden(s.Name) {
			continue
		}
		out = append(out, actuators.ServiceInfo{Name: s.Name, Providers: providers(s)})
	}
	return out, nil
}

// providers are the nodes owning a service's servers, sorted, each once.
func providers(s graph.Service) []string {
	var out []string
	for _, e := range s.Servers {
		if e.Node != "" && !slices.Contains(out, e.Node) {
			out = append(out, e.Node)
		}
	}
	slices.Sort(out)
	return out
}

// serverOf waits for a server of name, and returns the service and its
// one type.
func (r *Robot) serverOf(ctx context.Context, name string) (graph.Service, string, error) {
	s, err := discover(ctx, r.rctx, func(g graph.Graph) (graph.Service, bool) {
		i := slices.IndexFunc(g.Services, func(s graph.Service) bool { return s.Name == name && len(s.Servers) > 0 })
		if i < 0 {
			return graph.Service{}, false
		}
		return g.Services[i], true
	}, fmt.Errorf("%w: %s has no server (see Services)", actuators.ErrUnknownService, name))
	switch {
	case err != nil:
		return s, "", err
	case len(s.Types) != 1:
		return s, "", fmt.Errorf("%s is served with several types %v", name, s.Types)
	}
	return s, s.Types[0], nil
}

// ServiceType is the type the service's servers announce in discovery.
// A type outside the distro's set is learned from the serving node's
// type description (typedesc.go) before it is returned, so that
// ServiceTypes lists it; when it cannot be learned, the type comes with
// an error wrapping actuators.ErrUnsupportedType that says why. Nothing
// is sent to the service itself.
func (r *Robot) ServiceType(ctx context.Context, name string) (string, error) {
	if typ, ok := r.actionOf(name); ok {
		return typ, nil
	}
	s, typ, err := r.serverOf(ctx, name)
	if errors.Is(err, actuators.ErrUnknownService) {
		if typ, ok := r.actionOf(name); ok { // discovered meanwhile
			return typ, nil
		}
	}
	if err != nil {
		return typ, err
	}
	_, err = r.typesOf(ctx, s, typ)
	return typ, err
}

// ServiceTypes lists the service types offered to the tool layer, sorted
// by name: every service of the robot's distro's set and those learned
// from nodes' type descriptions, with their fields in ROS form and the
// messages they nest. CallService sends any of them.
func (r *Robot) ServiceTypes() []actuators.ServiceType {
	c, err := r.access.types(r.Distro())
	if err != nil {
		return nil
	}
	out := slices.Concat(c.services, r.access.learned.list()) // the catalogue is shared by every call: a copy
	slices.SortFunc(out, byName)
	return out
}

func byName(a, b actuators.ServiceType) int { return strings.Compare(a.Name, b.Name) }

// CallService sends one request of a type of ServiceTypes, built from
// JSON values (fields left out are zero, as `ros2 service call` fills
// them), and returns the response as JSON-ready values. A type outside
// the distro's set is learned first (ServiceType); nothing of the
// request leaves before its type is known. The request is sent once,
// after the server is matched and ready (ros2/service); every failure
// before it left wraps actuators.ErrServiceNotSent: an unknown type, a
// request that does not fit it, no server, a server of another type,
// more than one participant serving it (actuators.ErrAmbiguousServer,
// naming them). The request goes to the one server's reader alone. A request sent and never acknowledged, or
// acknowledged and not answered within timeout, is not wrapped: it may
// have run.
func (r *Robot) CallService(ctx context.Context, name, typ string, request map[string]any, timeout time.Duration) (map[string]any, error) {
	cat, err := r.access.types(r.Distro())
	if err != nil {
		return nil, fmt.Errorf("%w: %w", actuators.ErrServiceNotSent, err)
	}
	if timeout <= 0 || timeout > MaxServiceTimeout {
		timeout = MaxServiceTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if slices.Contains(callableActions(), typ) {
		if got, ok := r.actionOf(name); !ok || got != typ {
			return nil, fmt.Errorf("%w: %w: %s serves no action %s", actuators.ErrServiceNotSent, actuators.ErrUnknownService, name, typ)
		}
		return r.callAction(ctx, name, typ, request)
	}
	s, got, err := r.serverOf(ctx, name)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", actuators.ErrServiceNotSent, err)
	}
	server, _, err := pick("servers of "+name, sources(s.Servers), "")
	if err != nil {
		return nil, fmt.Errorf("%w: %w", actuators.ErrServiceNotSent, err)
	}
	types, inSet := cat.types[typ]
	switch {
	case got != typ && !inSet:
		return nil, fmt.Errorf("%w: %w: service type %s is not in %s's set, and %s is a %s", actuators.ErrServiceNotSent, actuators.ErrUnsupportedType, typ, r.Distro(), name, got)
	case got != typ:
		return nil, fmt.Errorf("%w: %s is a %s, not a %s", actuators.ErrServiceNotSent, name, got, typ)
	case !inSet:
		if types, err = r.typesOf(ctx, s, typ); err != nil {
			return nil, fmt.Errorf("%w: %w", actuators.ErrServiceNotSent, err)
		}
	}
	if request == nil {
		request = map[string]any{}
	}
	body, err := json.Marshal(request)
	if err != nil {
		return nil, fmt.Errorf("%w: %w: %s: %v", actuators.ErrServiceNotSent, actuators.ErrInvalidArgument, name, err)
	}
	req, err := cdr.FromJSON(types.Request, body)
	if err != nil {
		return nil, fmt.Errorf("%w: %w: %s: %v", actuators.ErrServiceNotSent, actuators.ErrInvalidArgument, name, err)
	}
	rep, err := r.exchange(ctx, name, server, types, req, timeout)
	if err != nil {
		return nil, err
	}
	out, _ := messageJSON(rep).(map[string]any)
	if out == nil {
		out = map[string]any{}
	}
	delete(out, msgdef.DummyField)
	return out, nil
}

// exchange sends req to server's name and waits for the reply. Errors
// from before the request left wrap actuators.ErrServiceNotSent.
func (r *Robot) exchange(ctx context.Context, name string, server wire.GUIDPrefix, types service.Types, req *cdr.Message, timeout time.Duration) (*cdr.Message, error) {
	cl, kept, err := r.access.serviceClient(name, types, func() (*service.Client, error) {
		return service.NewClient(r.rctx.Participant(), types, name, service.Options{Endpoints: r.node.Announce, Logger: r.log})
	})
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", actuators.ErrServiceNotSent, name, err)
	}
	if !kept {
		defer cl.Close()
	}
	rep, _, err := cl.ExchangeWith(ctx, req, server)
	switch {
	case errors.Is(err, service.ErrAmbiguousServer):
		return nil, fmt.Errorf("%w: %w: %s: %w", actuators.ErrServiceNotSent, actuators.ErrAmbiguousServer, name, err)
	case errors.Is(err, service.ErrNoServer), errors.Is(err, service.ErrMixedDialects):
		return nil, fmt.Errorf("%w: %s: %w", actuators.ErrServiceNotSent, name, err)
	case errors.Is(err, service.ErrNoReply) && ctx.Err() != nil:
		return nil, fmt.Errorf("no answer from %s within %s: %w", name, timeout, err)
	case err != nil:
		return nil, fmt.Errorf("calling %s: %w", name, err)
	}
	return rep, nil
}

// The ROS 2 transport offers the guarded ROS tools.
var (
	_ actuators.Graph      = (*Robot)(nil)
	_ actuators.Parameters = (*Robot)(nil)
	_ actuators.Services   = (*Robot)(nil)
)
