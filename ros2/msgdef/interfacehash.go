package msgdef

import (
	"maps"
	"strings"

	"github.com/actbridge/actbridge/cdr"
)

// interfaceView returns r with the types rosidl describes for a whole
// service or action added, when name is one ("pkg/srv/X" with X_Request
// and X_Response known; an action's X_SendGoal and X_GetResult; or
// "pkg/action/X" with X_Goal known), or nil. rmw announces these hashes
// for service endpoints; they exist only in type descriptions, never on
// the wire, so the registry itself does not hold them.
func (r *Registry) interfaceView(name string) *Registry {
	if _, ok := r.defs[name]; ok {
		return nil
	}
	parts := strings.Split(name, "/")
	if len(parts) != 3 {
		return nil
	}
	pkg, ns, typ := parts[0], parts[1], parts[2]
	nested := func(n string) TypeRef { return TypeRef{Package: pkg, Namespace: ns, Name: n} }
	def := func(n string, fields ...FieldDef) *Definition {
		return &Definition{Package: pkg, Namespace: ns, Name: n, File: "(rosidl type description of " + name + ")", Fields: fields}
	}
	v := &Registry{defs: maps.Clone(r.defs), structs: map[string]*cdr.Struct{}}
	switch {
	case r.defs[name+"_Request"] != nil && r.defs[name+"_Response"] != nil:
		v.addService(pkg, ns, typ)
	case ns == "action" && r.defs[name+"_Goal"] != nil:
		v.addService(pkg, ns, typ+"_SendGoal")
		v.addService(pkg, ns, typ+"_GetResult")
		d := def(typ,
			FieldDef{Name: "goal", Type: nested(typ + "_Goal")},
			FieldDef{Name: "result", Type: nested(typ + "_Result")},
			FieldDef{Name: "feedback", Type: nested(typ + "_Feedback")},
			FieldDef{Name: "send_goal_service", Type: nested(typ + "_SendGoal")},
			FieldDef{Name: "get_result_service", Type: nested(typ + "_GetResult")},
			FieldDef{Name: "feedback_message", Type: nested(typ + "_FeedbackMessage")})
		v.defs[d.FullName()] = d
	default:
		return nil
	}
	return v
}

// addService adds rosidl's service description pkg/ns/X {request_message,
// response_message, event_message} and its X_Event, with
// service_msgs/ServiceEventInfo, which X_Event nests.
func (r *Registry) addService(pkg, ns, typ string) {
	nested := func(n string) TypeRef { return TypeRef{Package: pkg, Namespace: ns, Name: n} }
	atMostOne := func(t TypeRef) TypeRef { t.Collection, t.Len = cdr.Sequence, 1; return t }
	file := "(rosidl type description of " + pkg + "/" + ns + "/" + typ + ")"
	for _, d := range []*Definition{
		{Package: pkg, Namespace: ns, Name: typ, File: file, Fields: []FieldDef{
			{Name: "request_message", Type: nested(typ + "_Request")},
			{Name: "response_message", Type: nested(typ + "_Response")},
			{Name: "event_message", Type: nested(typ + "_Event")},
		}},
		{Package: pkg, Namespace: ns, Name: typ + "_Event", File: file, Fields: []FieldDef{
			{Name: "info", Type: TypeRef{Package: "service_msgs", Name: "ServiceEventInfo"}},
			{Name: "request", Type: atMostOne(nested(typ + "_Request"))},
			{Name: "response", Type: atMostOne(nested(typ + "_Response"))},
		}},
		// service_msgs/msg/ServiceEventInfo as Iron and later define it.
		{Package: "service_msgs", Namespace: "msg", Name: "ServiceEventInfo", File: file, Fields: []FieldDef{
			{Name: "event_type", Type: TypeRef{Primitive: "uint8"}},
			{Name: "stamp", Type: TypeRef{Package: "builtin_interfaces", Name: "Time"}},
			{Name: "client_gid", Type: TypeRef{Primitive: "char", Collection: cdr.Array, Len: 16}},
			{Name: "sequence_number", Type: TypeRef{Primitive: "int64"}},
		}},
	} {
		if _, ok := r.defs[d.FullName()]; !ok {
			r.defs[d.FullName()] = d
		}
	}
}
