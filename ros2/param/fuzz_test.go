package param

import (
	"testing"

	"github.com/actbridge/actbridge/cdr"
	"github.com/actbridge/actbridge/ros2/msgs"
	"github.com/actbridge/actbridge/ros2/service"
)

// FuzzServerRequests feeds any request of the six parameter services,
// as a remote node may send it, to a Server's handlers: none may panic,
// and a declared parameter keeps a value of its declared type.
func FuzzServerRequests(f *testing.F) {
	set, err := msgs.Load(msgs.Jazzy)
	if err != nil {
		f.Fatal(err)
	}
	s := &Server{node: node, types: map[string]service.Types{}}
	if err := s.resolve(set); err != nil {
		f.Fatal(err)
	}
	handlers := []struct {
		typ string
		h   func(req, rep *cdr.Message)
	}{
		{"ListParameters", s.list}, {"GetParameters", s.get}, {"GetParameterTypes", s.getTypes},
		{"SetParameters", s.set}, {"SetParametersAtomically", s.setAtomically}, {"DescribeParameters", s.describe},
	}
	types := make([]service.Types, len(handlers))
	for i, h := range handlers {
		if types[i], err = service.ResolveTypes(set, "rcl_interfaces/srv/"+h.typ); err != nil {
			f.Fatal(err)
		}
	}
	setReq := cdr.Zero(types[3].Request)
	ps := cdr.MakeSlice(setReq.Type.Field(0).Type, 1).([]*cdr.Message)
	ps[0].Set("name", "speed")
	v, _ := Value{0.75}.message(s.valueT)
	ps[0].Set("value", v)
	setReq.Set("parameters", ps)
	seed, _ := cdr.Encode(setReq, cdr.LittleEndian)
	f.Add(uint8(3), seed)
	f.Add(uint8(0), []byte{0, 1, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 'a', 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, which uint8, b []byte) {
		s.params = map[string]*Declaration{}
		for _, d := range robotParams() {
			s.params[d.Name] = &d
		}
		i := int(which) % len(handlers)
		req, err := cdr.Decode(types[i].Request, b)
		if err != nil {
			return
		}
		rep := cdr.Zero(types[i].Response)
		handlers[i].h(req, rep)
		if _, err := cdr.Encode(rep, cdr.LittleEndian); err != nil {
			t.Fatalf("%s reply does not encode: %v", handlers[i].typ, err)
		}
		for _, d := range robotParams() {
			if got, ok := s.params[d.Name]; ok && !d.DynamicTyping {
				want, _ := d.Value.Type()
				if gt, _ := got.Value.Type(); gt != want {
					t.Fatalf("%s became a %v", d.Name, gt)
				}
			}
		}
	})
}
