package ros2face

import (
	"context"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/actbridge/actbridge/cdr"
	"github.com/actbridge/actbridge/msgs/ros2"
	"github.com/actbridge/actbridge/ros2/graph"
	"github.com/actbridge/actbridge/ros2/service"
)

const (
	typeGetTypeDescription = "type_description_interfaces/srv/GetTypeDescription"
	typeTypeDescription    = "type_description_interfaces/msg/TypeDescription"
	// ServiceTypeDescription is the service every node serves from Iron
	// on (relative to the node).
	ServiceTypeDescription = "get_type_description"
)

// The failure reasons rcl answers with (rcl src/rcl/node.c,
// rcl_node_type_description_service_handle_request).
const (
	reasonBadHash = "Failed to parse type hash"
	reasonNotUsed = "Type not currently in use by this node"
	reasonNoDesc  = "Failed to populate TypeDescription to response."
)

// describer answers ~/get_type_description from the face's definitions;
// its registry is its own, behind mu (a Registry caches as it resolves).
type describer struct {
	mu   sync.Mutex
	set  *msgs.Set
	desc *cdr.Struct // type_description_interfaces/msg/TypeDescription, as the response holds it
}

// typeDescriptions serves ~/get_type_description on every node of the
// face (Jazzy and Kilted; Humble has no such service), as rcl does for a
// node whose start_type_description_service parameter is true, its
// default: it answers for the types the node's endpoints use, found by
// the hash the request names, as rcl's type cache finds them; the type
// name of the request is not checked, and no sources are sent.
func (f *face) typeDescriptions() error {
	if f.cfg.Distro == msgs.Humble {
		return nil
	}
	types, err := service.ResolveTypes(f.set, typeGetTypeDescription)
	if err != nil {
		return err
	}
	set, err := msgs.Load(f.cfg.Distro)
	if err == nil {
		err = AddInterfaces(set)
	}
	if err != nil {
		return err
	}
	d := &describer{set: set}
	// The answer's own field type: a message of the describer's set would
	// be another struct, which the encoder refuses.
	if i := types.Response.FieldIndex("type_description"); i >= 0 {
		d.desc = types.Response.Field(i).Type.Struct
	}
	if d.desc == nil || d.desc.Name() != typeTypeDescription {
		return fmt.Errorf("%s has no %s type_description", typeGetTypeDescription, typeTypeDescription)
	}
	for _, n := range f.nodes {
		full, err := resolve(n, "~/"+ServiceTypeDescription)
		if err != nil {
			return err
		}
		srv, err := service.NewServer(f.ctx.Participant(), types, full, d.handler(types, func() graph.Graph { return f.ctx.Graph() }, n.FullName()),
			service.Options{Endpoints: n.Announce})
		if err != nil {
			return fmt.Errorf("%s: %w", full, err)
		}
		f.servers = append(f.servers, srv)
	}
	return nil
}

// handler answers GetTypeDescription requests to the node named node.
func (d *describer) handler(types service.Types, graphOf func() graph.Graph, node string) service.Handler {
	return func(_ context.Context, req *cdr.Message) (*cdr.Message, error) {
		rep := cdr.Zero(types.Response)
		fl := fields{m: rep}
		hash, _ := req.Get("type_hash").(string)
		typ, reason := "", ""
		switch {
		case !validHash(hash):
			reason = reasonBadHash
		default:
			if typ = typeInUse(graphOf(), node, hash); typ == "" {
				reason = reasonNotUsed
			}
		}
		if reason == "" {
			m, err := d.describe(typ)
			if err != nil {
				reason = reasonNoDesc
			} else {
				fl.set("type_description", m)
				fl.set("successful", true)
			}
		}
		fl.set("failure_reason", reason)
		return rep, fl.err
	}
}

func (d *describer) describe(typ string) (*cdr.Message, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	td, err := d.set.Describe(typ)
	if err != nil {
		return nil, err
	}
	return td.Message(d.desc)
}

// validHash is what rosidl_parse_type_hash_string accepts: RIHS01_ and
// 64 hex digits.
func validHash(h string) bool {
	hexs, ok := strings.CutPrefix(h, "RIHS01_")
	_, err := hex.DecodeString(hexs)
	return ok && len(hexs) == 64 && err == nil
}

// typeInUse is the type of one of node's endpoints announced with hash:
// a topic's message type, a service's service type (what its request
// and reply endpoints announce the hash of), or "".
func typeInUse(g graph.Graph, node, hash string) string {
	for _, t := range g.Topics {
		for _, e := range slices.Concat(t.Publishers, t.Subscribers) { // the graph is shared: no append
			if e.Node == node && e.TypeHash == hash {
				return e.Type
			}
		}
	}
	for _, s := range g.Services {
		for _, e := range slices.Concat(s.Servers, s.Clients) {
			if e.Node == node && e.TypeHash == hash {
				return strings.TrimSuffix(strings.TrimSuffix(e.Type, "_Request"), "_Response")
			}
		}
	}
	return ""
}
