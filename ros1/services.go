package ros1

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net"
	"net/url"
	"os"
	"reflect"
	"sort"
	"time"

	"github.com/bluenviron/goroslib/v2/pkg/apimaster"
	"github.com/bluenviron/goroslib/v2/pkg/msg"
	"github.com/bluenviron/goroslib/v2/pkg/msgs/std_srvs"
	"github.com/bluenviron/goroslib/v2/pkg/protocommon"
	"github.com/bluenviron/goroslib/v2/pkg/prototcp"
	"github.com/bluenviron/goroslib/v2/pkg/serviceproc"

	"github.com/actbridge/actbridge/actuators"
)

// ErrUnsupportedService: the bridge has no Go type for the service's type.
var ErrUnsupportedService = fmt.Errorf("%w: service", actuators.ErrUnsupportedType)

// MaxServiceTimeout bounds one CallService.
const MaxServiceTimeout = time.Minute

// srvKind is one service type the bridge can call: goroslib needs a Go
// type to encode the request and to check the type's MD5 at the handshake.
type srvKind struct {
	info     actuators.ServiceType
	md5      string
	req, res reflect.Type
}

// serviceKinds is the registry of callable types. Add a type here (with
// scalar request fields only) to make it callable.
var serviceKinds = func() map[string]srvKind {
	out := map[string]srvKind{}
	for _, srv := range []any{std_srvs.Trigger{}, std_srvs.SetBool{}, std_srvs.Empty{}} {
		name, err := serviceproc.Type(srv)
		if err != nil {
			panic(fmt.Sprintf("actuators: service type %T: %v", srv, err))
		}
		md5, err := serviceproc.MD5(srv)
		if err != nil {
			panic(fmt.Sprintf("actuators: service type %T: %v", srv, err))
		}
		req, res, err := serviceproc.RequestResponse(srv)
		if err != nil {
			panic(fmt.Sprintf("actuators: service type %T: %v", srv, err))
		}
		k := srvKind{md5: md5, req: reflect.TypeOf(req), res: reflect.TypeOf(res)}
		k.info = actuators.ServiceType{Name: name, Request: scalarFields(k.req), Response: scalarFields(k.res)}
		out[name] = k
	}
	return out
}()

var (
	timeT = reflect.TypeOf(time.Time{})
	durT  = reflect.TypeOf(time.Duration(0))
)

// scalarFields lists a message struct's fields; non-scalar fields panic at
// start-up (the registry only takes types the tools can validate).
func scalarFields(t reflect.Type) []actuators.ServiceField {
	out := []actuators.ServiceField{}
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Anonymous && f.Type == reflect.TypeOf(msg.Package(0)) || !f.IsExported() {
			continue
		}
		if f.Type == timeT || f.Type == durT {
			panic("actuators: service field " + f.Name + ": times are not supported")
		}
		switch f.Type.Kind() {
		case reflect.Bool, reflect.String, reflect.Float32, reflect.Float64, reflect.Int8, reflect.Uint8,
			reflect.Int16, reflect.Uint16, reflect.Int32, reflect.Uint32, reflect.Int64, reflect.Uint64:
		default:
			panic("actuators: service field " + f.Name + ": only scalar fields are supported")
		}
		out = append(out, actuators.ServiceField{Name: rosFieldName(f), Type: f.Type.Kind().String()})
	}
	return out
}

func rosFieldName(f reflect.StructField) string {
	if n := f.Tag.Get("rosname"); n != "" {
		return n
	}
	return camelToSnake(f.Name)
}

// ServiceTypes lists the callable service types, sorted.
func (r *Robot) ServiceTypes() []actuators.ServiceType { return CallableServiceTypes() }

// CallableServiceTypes lists the service types CallService can send, sorted.
func CallableServiceTypes() []actuators.ServiceType {
	out := make([]actuators.ServiceType, 0, len(serviceKinds))
	for _, k := range serviceKinds {
		out = append(out, k.info)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// master runs one master API call, giving up when ctx ends.
func (r *Robot) master(ctx context.Context, f func(c *apimaster.Client) error) error {
	c := apimaster.NewClient(r.bus.master, r.bus.name, r.bus.hc)
	ch := make(chan error, 1) // the call finishes on its own if ctx ends first
	go func() { ch <- f(c) }()
	select {
	case err := <-ch:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Services lists the graph's services with their providers, sorted.
func (r *Robot) Services(ctx context.Context) ([]actuators.ServiceInfo, error) {
	var st *apimaster.SystemState
	if err := r.master(ctx, func(c *apimaster.Client) (err error) { st, err = c.GetSystemState(); return }); err != nil {
		return nil, fmt.Errorf("%w: ask the master for services: %v", actuators.ErrNotConnected, err)
	}
	out := make([]actuators.ServiceInfo, 0, len(st.ProvidedServices))
	for _, e := range st.ProvidedServices {
		out = append(out, actuators.ServiceInfo{Name: e.Name, Providers: e.Nodes})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// serviceAddr looks a service up on the master.
func (r *Robot) serviceAddr(ctx context.Context, name string) (string, error) {
	var uri string
	err := r.master(ctx, func(c *apimaster.Client) (err error) { uri, err = c.LookupService(name); return })
	if err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "", fmt.Errorf("%w: %s", actuators.ErrUnknownService, name)
	}
	u, err := url.Parse(uri)
	if err != nil || u.Host == "" {
		return "", fmt.Errorf("master has a bad URI %q for service %s", uri, name)
	}
	return u.Host, nil
}

// dialService connects and exchanges headers; md5 "*" with probe asks only
// for the type, as `rosservice type` does.
func (r *Robot) dialService(ctx context.Context, name string, header any) (net.Conn, *prototcp.Conn, protocommon.HeaderRaw, error) {
	addr, err := r.serviceAddr(ctx, name)
	if err != nil {
		return nil, nil, nil, err
	}
	nc, err := (&net.Dialer{}).DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("connect to %s at %s: %w", name, addr, err)
	}
	if dl, ok := ctx.Deadline(); ok {
		_ = nc.SetDeadline(dl)
	}
	stop := context.AfterFunc(ctx, func() { _ = nc.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	tc := prototcp.NewConn(nc)
	if err := tc.WriteHeader(header); err != nil {
		nc.Close()
		return nil, nil, nil, fmt.Errorf("handshake with %s: %w", name, err)
	}
	raw, err := tc.ReadHeaderRaw()
	if err != nil {
		nc.Close()
		return nil, nil, nil, fmt.Errorf("handshake with %s: %w", name, err)
	}
	if msg, ok := raw["error"]; ok {
		nc.Close()
		return nil, nil, nil, fmt.Errorf("%s refused the connection: %s", name, msg)
	}
	return nc, tc, raw, nil
}

type probeHeader struct {
	Callerid string
	Service  string
	Md5sum   string
	Probe    int
}

// ServiceType probes a service for its type; no request is sent.
func (r *Robot) ServiceType(ctx context.Context, name string) (string, error) {
	nc, _, raw, err := r.dialService(ctx, name, &probeHeader{Callerid: r.bus.name, Service: name, Md5sum: "*", Probe: 1})
	if err != nil {
		return "", err
	}
	nc.Close()
	if raw["type"] == "" {
		return "", fmt.Errorf("%s did not say its type", name)
	}
	return raw["type"], nil
}

// CallService sends one request of a registered type and returns the
// response as JSON-ready values. The handshake checks the type's MD5 before
// anything is sent; every failure until then wraps actuators.ErrServiceNotSent.
func (r *Robot) CallService(ctx context.Context, name, typ string, request map[string]any, timeout time.Duration) (map[string]any, error) {
	k, ok := serviceKinds[typ]
	if !ok {
		return nil, fmt.Errorf("%w: %w: %s", actuators.ErrServiceNotSent, ErrUnsupportedService, typ)
	}
	req := reflect.New(k.req)
	if err := fillRequest(req.Elem(), request); err != nil {
		return nil, fmt.Errorf("%w: %w: %s: %v", actuators.ErrServiceNotSent, actuators.ErrInvalidArgument, name, err)
	}
	if timeout <= 0 || timeout > MaxServiceTimeout {
		timeout = MaxServiceTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	nc, tc, raw, err := r.dialService(ctx, name, &prototcp.HeaderServiceClient{Callerid: r.bus.name, Md5sum: k.md5, Service: name})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", actuators.ErrServiceNotSent, err)
	}
	defer nc.Close()
	stop := context.AfterFunc(ctx, func() { _ = nc.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	if got := raw["md5sum"]; got != k.md5 {
		return nil, fmt.Errorf("%w: %s is not a %s (type %s)", actuators.ErrServiceNotSent, name, typ, raw["type"])
	}
	// From here on the request may have reached the service.
	if err := tc.WriteMessage(req.Interface()); err != nil {
		return nil, fmt.Errorf("sending the request to %s: %w", name, err)
	}
	res := reflect.New(k.res)
	answered, err := tc.ReadServiceResponse(res.Interface())
	switch {
	case err != nil && (ctx.Err() != nil || errors.Is(err, os.ErrDeadlineExceeded)):
		return nil, fmt.Errorf("no answer from %s within %s: %w", name, timeout, context.DeadlineExceeded)
	case err != nil:
		return nil, fmt.Errorf("reading the answer of %s: %w", name, err)
	case !answered:
		return nil, fmt.Errorf("%w: %s answered with a failure", actuators.ErrServiceFailed, name)
	}
	out, _ := rosJSON(res.Interface()).(map[string]any)
	if out == nil {
		out = map[string]any{}
	}
	return out, nil
}

// fillRequest sets a request struct from JSON values by ROS field name.
func fillRequest(v reflect.Value, in map[string]any) error {
	t := v.Type()
	seen := map[string]bool{}
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() || f.Anonymous {
			continue
		}
		name := rosFieldName(f)
		x, ok := in[name]
		if !ok {
			return fmt.Errorf("request field %s missing", name)
		}
		seen[name] = true
		fv := v.Field(i)
		switch fv.Kind() {
		case reflect.Bool:
			b, ok := x.(bool)
			if !ok {
				return fmt.Errorf("request field %s: want a bool", name)
			}
			fv.SetBool(b)
		case reflect.String:
			s, ok := x.(string)
			if !ok {
				return fmt.Errorf("request field %s: want a string", name)
			}
			fv.SetString(s)
		case reflect.Float32, reflect.Float64:
			f, ok := x.(float64)
			if !ok {
				return fmt.Errorf("request field %s: want a number", name)
			}
			fv.SetFloat(f)
		case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			f, ok := x.(float64)
			if !ok || f != math.Trunc(f) || fv.OverflowInt(int64(f)) {
				return fmt.Errorf("request field %s: want an integer that fits %s", name, fv.Kind())
			}
			fv.SetInt(int64(f))
		case reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			f, ok := x.(float64)
			if !ok || f != math.Trunc(f) || f < 0 || fv.OverflowUint(uint64(f)) {
				return fmt.Errorf("request field %s: want an integer that fits %s", name, fv.Kind())
			}
			fv.SetUint(uint64(f))
		default:
			return fmt.Errorf("request field %s: unsupported type", name)
		}
	}
	for k := range in {
		if !seen[k] {
			return fmt.Errorf("request field %s: no such field", k)
		}
	}
	return nil
}

// Publishers lists, by topic, the nodes the master says publish it
// (getSystemState), for a count where one source is expected.
func (r *Robot) Publishers(ctx context.Context) (map[string][]string, error) {
	var st *apimaster.SystemState
	if err := r.master(ctx, func(c *apimaster.Client) (err error) { st, err = c.GetSystemState(); return }); err != nil {
		return nil, fmt.Errorf("%w: ask the master for publishers: %v", actuators.ErrNotConnected, err)
	}
	out := make(map[string][]string, len(st.PublishedTopics))
	for _, e := range st.PublishedTopics {
		out[e.Name] = e.Nodes
	}
	return out, nil
}
