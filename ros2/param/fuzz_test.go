package param

import (
	"fmt"
	"testing"

	"github.com/actbridge/actbridge/cdr"
	"github.com/actbridge/actbridge/msgs/ros2"
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

// FuzzClientReplies feeds any reply of the four parameter services a
// Client calls, as a remote node may send it, to the Client's readers:
// none panics, and a reply read is one answer per name asked, each value
// of a known type.
func FuzzClientReplies(f *testing.F) {
	set, err := msgs.Load(msgs.Jazzy)
	if err != nil {
		f.Fatal(err)
	}
	asked := []string{"speed", "limit"}
	replies := []struct {
		typ  string
		read func(rep *cdr.Message) (int, error) // how many answers to asked
	}{
		{"ListParameters", func(rep *cdr.Message) (int, error) { _, err := listReply(rep); return len(asked), err }}, // names, not answers
		{"GetParameters", func(rep *cdr.Message) (int, error) {
			vs, err := getReply(rep, asked)
			for _, v := range vs {
				if _, terr := v.Type(); terr != nil {
					return 0, fmt.Errorf("value %v read without error: %v", v, terr)
				}
			}
			return len(vs), err
		}},
		{"SetParameters", func(rep *cdr.Message) (int, error) { rs, err := setReply(rep, len(asked)); return len(rs), err }},
		{"DescribeParameters", func(rep *cdr.Message) (int, error) { ds, err := describeReply(rep, asked); return len(ds), err }},
	}
	types := make([]service.Types, len(replies))
	for i, r := range replies {
		if types[i], err = service.ResolveTypes(set, "rcl_interfaces/srv/"+r.typ); err != nil {
			f.Fatal(err)
		}
		b, err := cdr.Encode(cdr.Zero(types[i].Response), cdr.LittleEndian)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(uint8(i), b)
	}
	getRep := cdr.Zero(types[1].Response)
	vs := cdr.MakeSlice(getRep.Type.Field(0).Type, 2).([]*cdr.Message)
	vs[0].Set("type", uint8(Double))
	vs[0].Set("double_value", 0.5)
	vs[1].Set("type", uint8(200))
	getRep.Set("values", vs)
	seed, _ := cdr.Encode(getRep, cdr.LittleEndian)
	f.Add(uint8(1), seed)
	f.Fuzz(func(t *testing.T, which uint8, b []byte) {
		i := int(which) % len(replies)
		rep, err := cdr.Decode(types[i].Response, b)
		if err != nil {
			return
		}
		n, err := replies[i].read(rep)
		if err == nil && n != len(asked) {
			t.Fatalf("%s: %d answers for %d names, and no error", replies[i].typ, n, len(asked))
		}
	})
}
