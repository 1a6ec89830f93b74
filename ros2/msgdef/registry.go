package msgdef

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"

	"github.com/actbridge/actbridge/cdr"
)

// Registry holds definitions by full name and resolves them into cdr
// types. It caches what it resolves and is not safe for concurrent use.
type Registry struct {
	defs    map[string]*Definition
	structs map[string]*cdr.Struct
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{defs: map[string]*Definition{}, structs: map[string]*cdr.Struct{}}
}

// Add adds parsed definitions; a name added before is an error.
func (r *Registry) Add(defs ...*Definition) error {
	for _, d := range defs {
		n := d.FullName()
		if prev, dup := r.defs[n]; dup {
			return fmt.Errorf("%w: %s from %s, already from %s", ErrDuplicate, n, d.File, prev.File)
		}
		r.defs[n] = d
	}
	return nil
}

// AddFile parses and adds one .msg, .srv or .action file of package pkg;
// an action brings the types rosidl derives from it (ActionTypes).
func (r *Registry) AddFile(pkg, path string) error {
	src, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return r.addSource(pkg, path, src)
}

// addSource parses the text of one .msg, .srv or .action file; path names
// it in errors and gives its kind and type name.
func (r *Registry) addSource(pkg, path string, src []byte) error {
	ext := filepath.Ext(path)
	name := strings.TrimSuffix(filepath.Base(path), ext)
	switch ext {
	case ".msg":
		d, err := ParseMsg(path, pkg, name, src)
		if err != nil {
			return err
		}
		return r.Add(d)
	case ".srv":
		req, resp, err := ParseSrv(path, pkg, name, src)
		if err != nil {
			return err
		}
		return r.Add(req, resp)
	case ".action":
		g, res, fb, err := ParseAction(path, pkg, name, src)
		if err != nil {
			return err
		}
		return r.Add(append([]*Definition{g, res, fb}, ActionTypes(pkg, name)...)...)
	}
	return fmt.Errorf("%s: not a .msg, .srv or .action file", path)
}

// AddPackage adds every definition of a package laid out as ROS does:
// dir/msg/*.msg, dir/srv/*.srv, dir/action/*.action.
func (r *Registry) AddPackage(pkg, dir string) error {
	return r.addPackage(os.DirFS(dir), pkg, dir)
}

func (r *Registry) addPackage(fsys fs.FS, pkg, label string) error {
	for _, ns := range []string{"msg", "srv", "action"} {
		files, err := fs.Glob(fsys, ns+"/*."+ns)
		if err != nil {
			return err
		}
		for _, f := range files {
			src, err := fs.ReadFile(fsys, f)
			if err != nil {
				return err
			}
			if err := r.addSource(pkg, filepath.Join(label, f), src); err != nil {
				return err
			}
		}
	}
	return nil
}

// AddTree adds every package under root, one folder per package
// (root/std_msgs/msg/Header.msg, …), as a ROS share folder lays them out.
func (r *Registry) AddTree(root string) error {
	return r.AddFS(os.DirFS(root), root)
}

// AddFS adds every package at the top of fsys, laid out as AddTree reads
// a folder (embedded definitions, for one); errors name files below label.
func (r *Registry) AddFS(fsys fs.FS, label string) error {
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return err
	}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		sub, err := fs.Sub(fsys, e.Name())
		if err != nil {
			return err
		}
		if err := r.addPackage(sub, e.Name(), filepath.Join(label, e.Name())); err != nil {
			return err
		}
	}
	return nil
}

// Definition returns the definition of a full name ("pkg/msg/Type"), or nil.
func (r *Registry) Definition(name string) *Definition {
	return r.defs[name]
}

// Names returns every full name in the registry, sorted.
func (r *Registry) Names() []string {
	names := make([]string, 0, len(r.defs))
	for n := range r.defs {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Struct resolves a full name ("pkg/msg/Type", or "pkg/Type" for a message)
// and every type it nests into a cdr type named by its full name.
func (r *Registry) Struct(name string) (*cdr.Struct, error) {
	return r.resolve(fullName(name), map[string]bool{})
}

// DummyField is the field rosidl gives a message that declares none, so
// that it serializes as one byte.
const DummyField = "structure_needs_at_least_one_member"

func (r *Registry) resolve(name string, active map[string]bool) (*cdr.Struct, error) {
	if s, ok := r.structs[name]; ok {
		return s, nil
	}
	d, ok := r.defs[name]
	if !ok {
		return nil, fmt.Errorf("%w: %s", ErrUnknownType, name)
	}
	if active[name] {
		return nil, fmt.Errorf("%w: %s", ErrCycle, name)
	}
	active[name] = true
	defer delete(active, name)
	fields := make([]cdr.Field, 0, len(d.Fields))
	for _, f := range d.Fields {
		t := cdr.Type{StringBound: f.Type.StringBound, Collection: f.Type.Collection, Len: f.Type.Len}
		if f.Type.Primitive != "" {
			t.Kind, _ = primitiveKind(f.Type.Primitive)
		} else {
			nested, err := r.resolve(nestedName(f.Type), active)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: field %s: %w", d.File, f.Line, f.Name, err)
			}
			t.Kind, t.Struct = cdr.StructKind, nested
		}
		fields = append(fields, cdr.Field{Name: f.Name, Type: t})
	}
	if len(fields) == 0 {
		fields = append(fields, cdr.Field{Name: DummyField, Type: cdr.Type{Kind: cdr.Uint8}})
	}
	s, err := cdr.NewStruct(name, fields)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", d.File, err)
	}
	r.structs[name] = s
	return s, nil
}

// Message returns a value of the named type holding the definition's
// default values, and zero values where it gives none.
func (r *Registry) Message(name string) (*cdr.Message, error) {
	s, err := r.Struct(name)
	if err != nil {
		return nil, err
	}
	return r.withDefaults(s), nil
}

func (r *Registry) withDefaults(s *cdr.Struct) *cdr.Message {
	m := cdr.Zero(s)
	d := r.defs[s.Name()]
	if d == nil {
		return m
	}
	for i, f := range d.Fields {
		switch {
		case f.Default != nil:
			m.Fields[i] = cloneSlice(f.Default)
		case f.Type.Primitive == "" && f.Type.Collection == cdr.Single:
			m.Fields[i] = r.withDefaults(s.Field(i).Type.Struct)
		case f.Type.Primitive == "" && f.Type.Collection == cdr.Array:
			ms := m.Fields[i].([]*cdr.Message)
			for j := range ms {
				ms[j] = r.withDefaults(s.Field(i).Type.Struct)
			}
		}
	}
	return m
}

// cloneSlice copies a slice default so that a message never shares it with
// its definition; other values are immutable and returned as they are.
func cloneSlice(v any) any {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Slice {
		return v
	}
	c := reflect.MakeSlice(rv.Type(), rv.Len(), rv.Len())
	reflect.Copy(c, rv)
	return c.Interface()
}
