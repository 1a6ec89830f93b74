package ros2

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/actbridge/actbridge/actuators"
	"github.com/actbridge/actbridge/cdr"
	"github.com/actbridge/actbridge/msgs/ros2"
	"github.com/actbridge/actbridge/ros2/graph"
	"github.com/actbridge/actbridge/ros2/msgdef"
	"github.com/actbridge/actbridge/ros2/service"
)

// Learning a service type outside the distro's set: from Iron on, every
// node serves ~/get_type_description (type_description_interfaces), which
// describes the types its endpoints use, field by field; the endpoints
// announce each type's RIHS01 hash in their user data. The bridge asks
// the node serving a service for its type's description, builds the
// types from it (msgdef.FromDescription) and keeps them only if they
// hash to what the server announced: what it then encodes is the
// server's own type.
const (
	typeGetTypeDescription = "type_description_interfaces/srv/GetTypeDescription"
	// maxLearned bounds the service types kept, the oldest forgotten first.
	maxLearned = 64
	// failedFor is how long a type that could not be learned is not asked
	// for again: services_list probes every service of a page, and a node
	// without ~/get_type_description costs each probe its whole discovery
	// wait.
	failedFor = 30 * time.Second
)

// errNoDescriber: the node serving a service serves no type description.
var errNoDescriber = errors.New("no type description service")

// learnedTypes are the service types learned from nodes, by name; one
// hash per name (a server of the same name and another hash replaces
// it). Safe for concurrent use; no lock is held while a type is learned.
type learnedTypes struct {
	mu     sync.Mutex
	order  []string // names, oldest first
	types  map[string]learnedType
	failed map[string]failure // by name and hash; at most maxLearned
}

// failure is why a type could not be learned, and until when that stands.
type failure struct {
	err   error
	until time.Time
}

type learnedType struct {
	hash  string
	types service.Types
	st    actuators.ServiceType
}

// get returns the types of name learned with hash.
func (l *learnedTypes) get(name, hash string) (service.Types, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	t, ok := l.types[name]
	return t.types, ok && t.hash == hash
}

// put keeps a learned type, forgetting the oldest beyond maxLearned.
func (l *learnedTypes) put(name string, t learnedType) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.types == nil {
		l.types = map[string]learnedType{}
	}
	l.order = append(slices.DeleteFunc(l.order, func(n string) bool { return n == name }), name)
	l.types[name] = t
	for len(l.order) > maxLearned {
		delete(l.types, l.order[0])
		l.order = l.order[1:]
	}
}

// failedBefore returns why name with hash could not be learned, if that
// was less than failedFor before now.
func (l *learnedTypes) failedBefore(name, hash string, now time.Time) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if f, ok := l.failed[name+" "+hash]; ok && now.Before(f.until) {
		return f.err
	}
	return nil
}

// fail remembers why name with hash could not be learned, until
// now+failedFor; past maxLearned failures the expired go first, then all.
func (l *learnedTypes) fail(name, hash string, err error, now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.failed) >= maxLearned {
		maps.DeleteFunc(l.failed, func(_ string, f failure) bool { return !now.Before(f.until) })
	}
	if l.failed == nil || len(l.failed) >= maxLearned {
		l.failed = map[string]failure{}
	}
	l.failed[name+" "+hash] = failure{err: err, until: now.Add(failedFor)}
}

// list is every learned type, as ServiceTypes offers them.
func (l *learnedTypes) list() []actuators.ServiceType {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]actuators.ServiceType, 0, len(l.order))
	for _, n := range l.order {
		out = append(out, l.types[n].st)
	}
	return out
}

// typesOf returns the types of typ, the type of service s: the distro
// set's, or those learned from the node serving s (learned now if need
// be). Every failure wraps actuators.ErrUnsupportedType and says why.
func (r *Robot) typesOf(ctx context.Context, s graph.Service, typ string) (service.Types, error) {
	cat, err := r.access.types(r.Distro())
	if err != nil {
		return service.Types{}, err
	}
	if t, ok := cat.types[typ]; ok {
		return t, nil
	}
	unsupported := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s is a %s, which is not in %s's set, and %s", actuators.ErrUnsupportedType, s.Name, typ, r.Distro(), fmt.Sprintf(format, args...))
	}
	if r.Distro() == msgs.Humble {
		return service.Types{}, unsupported("Humble nodes describe no types (~/get_type_description is Iron and later)")
	}
	hash, node, err := announced(s)
	if err != nil {
		return service.Types{}, unsupported("%v", err)
	}
	if t, ok := r.access.learned.get(typ, hash); ok {
		return t, nil
	}
	if err := r.access.learned.failedBefore(typ, hash, time.Now()); err != nil {
		return service.Types{}, unsupported("%v (tried less than %s ago)", err, failedFor)
	}
	lt, err := r.learn(ctx, cat, node, typ, hash)
	if err != nil {
		// A caller's short deadline says nothing of the node, but for a
		// describer absent from a graph that already shows its service.
		if ctx.Err() == nil || errors.Is(err, errNoDescriber) {
			r.access.learned.fail(typ, hash, err, time.Now())
		}
		return service.Types{}, unsupported("%v", err)
	}
	r.access.learned.put(typ, lt)
	return lt.types, nil
}

// announced is the one type hash the servers of s announce, and the node
// owning one of them.
func announced(s graph.Service) (hash, node string, err error) {
	for _, e := range s.Servers {
		switch {
		case e.TypeHash == "":
			return "", "", errors.New("a server of it announces no type hash")
		case hash != "" && e.TypeHash != hash:
			return "", "", fmt.Errorf("its servers announce different type hashes (%s, %s)", hash, e.TypeHash)
		}
		hash = e.TypeHash
		if node == "" {
			node = e.Node
		}
	}
	if node == "" {
		return "", "", errors.New("no node owns its server (nothing on ros_discovery_info), so there is no type description to ask")
	}
	return hash, node, nil
}

// learn asks node's ~/get_type_description for typ with hash, and builds
// and proves its types.
func (r *Robot) learn(ctx context.Context, cat *catalogue, node, typ, hash string) (learnedType, error) {
	name := node + "/get_type_description"
	dtypes, ok := cat.types[typeGetTypeDescription]
	if !ok {
		return learnedType{}, fmt.Errorf("%s's set has no %s", r.Distro(), typeGetTypeDescription)
	}
	if _, got, err := r.serverOf(ctx, name); err != nil || got != typeGetTypeDescription {
		return learnedType{}, fmt.Errorf("%w: its node %s serves no %s (%s, %v) to describe it", errNoDescriber, node, typeGetTypeDescription, got, err)
	}
	cl, err := service.NewClient(r.rctx.Participant(), dtypes, name, service.Options{Endpoints: r.node.Announce, Logger: r.log})
	if err != nil {
		return learnedType{}, err
	}
	defer cl.Close()
	req := cdr.Zero(dtypes.Request)
	for k, v := range map[string]any{"type_name": typ, "type_hash": hash, "include_type_sources": false} {
		if err := req.Set(k, v); err != nil {
			return learnedType{}, err
		}
	}
	rep, err := cl.Call(ctx, req)
	if err != nil {
		return learnedType{}, fmt.Errorf("asking %s: %w", name, err)
	}
	types, err := describedTypes(rep, r.Distro(), name, typ, hash)
	if err != nil {
		return learnedType{}, err
	}
	r.log.Info("ros2: learned a service type from its node", "type", typ, "hash", hash, "from", name)
	return learnedType{hash: hash, types: types, st: serviceType(typ, types)}, nil
}

// describedTypes reads service type typ (with hash) from describer name's
// GetTypeDescription reply rep, as a node sent it: whatever it holds is
// an error or types proven against the hash.
func describedTypes(rep *cdr.Message, distro msgs.Distro, name, typ, hash string) (service.Types, error) {
	if ok, _ := rep.Get("successful").(bool); !ok {
		reason, _ := rep.Get("failure_reason").(string)
		return service.Types{}, fmt.Errorf("%s could not describe it: %q", name, clipText(reason, 200))
	}
	m, _ := rep.Get("type_description").(*cdr.Message)
	if m == nil {
		return service.Types{}, fmt.Errorf("%s answered no type description", name)
	}
	d, err := msgdef.DescriptionOf(m)
	if err != nil {
		return service.Types{}, err
	}
	reg, err := msgdef.FromDescription(d, typ, hash)
	if err != nil {
		return service.Types{}, fmt.Errorf("%s's description: %w", name, err)
	}
	// The learned registry holds only the described types: nothing of
	// the distro's set is replaced by what a node says.
	types, err := service.ResolveTypes(&msgs.Set{Distro: distro, Registry: reg}, typ)
	if err != nil {
		return service.Types{}, fmt.Errorf("%s's description: %w", name, err)
	}
	return types, nil
}

// clipText shortens text from the network for an error message.
func clipText(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
