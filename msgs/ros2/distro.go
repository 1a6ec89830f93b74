package msgs

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/actbridge/actbridge/cdr"
	"github.com/actbridge/actbridge/ros2/msgdef"
)

// Distro names a ROS 2 distribution whose definitions this package holds.
type Distro string

// The distros this package holds definitions for.
const (
	Humble Distro = "humble"
	Jazzy  Distro = "jazzy"
	Kilted Distro = "kilted"
	// Lyrical is Lyrical Luth (May 2026), the LTS after Jazzy.
	Lyrical Distro = "lyrical"
)

// Errors returned by this package.
var (
	// ErrUnknownDistro reports a distro this package holds no definitions for.
	ErrUnknownDistro = errors.New("msgs: unknown ROS 2 distro")
	// ErrNotInDistro reports a type the distro's set does not define.
	ErrNotInDistro = errors.New("msgs: type not in distro")
)

//go:embed humble jazzy kilted lyrical
var definitions embed.FS

// Distros returns the distros this package holds, oldest first.
func Distros() []Distro { return []Distro{Humble, Jazzy, Kilted, Lyrical} }

// ParseDistro returns the distro named s ("jazzy", any case).
func ParseDistro(s string) (Distro, error) {
	for _, d := range Distros() {
		if strings.EqualFold(s, string(d)) {
			return d, nil
		}
	}
	return "", fmt.Errorf("%w %q (known: %v)", ErrUnknownDistro, s, Distros())
}

// Set is one distro's definitions. Its Struct, Message and TypeHash
// name the distro when it lacks a type.
type Set struct {
	Distro Distro
	*msgdef.Registry
}

// Load parses the embedded definitions of a distro; each call returns a
// fresh set (a Registry caches and is not safe for concurrent use).
func Load(d Distro) (*Set, error) {
	if !slices.Contains(Distros(), d) {
		return nil, fmt.Errorf("%w %q (known: %v)", ErrUnknownDistro, d, Distros())
	}
	sub, err := fs.Sub(definitions, string(d))
	if err != nil {
		return nil, err
	}
	r := msgdef.NewRegistry()
	if err := r.AddFS(sub, "msgs/ros2/"+string(d)); err != nil {
		return nil, fmt.Errorf("msgs: loading %s: %w", d, err)
	}
	return &Set{Distro: d, Registry: r}, nil
}

// Struct resolves a type of the set ("pkg/msg/Type", or "pkg/Type" for a
// message); a type the distro lacks is ErrNotInDistro.
func (s *Set) Struct(name string) (*cdr.Struct, error) {
	if err := s.has(name, false); err != nil {
		return nil, err
	}
	return s.Registry.Struct(name)
}

// Message returns a value of a type of the set holding its defaults.
func (s *Set) Message(name string) (*cdr.Message, error) {
	if err := s.has(name, false); err != nil {
		return nil, err
	}
	return s.Registry.Message(name)
}

// TypeHash returns the RIHS01 hash of a type of the set, or of a whole
// service or action ("std_srvs/srv/Trigger", as rmw announces it).
func (s *Set) TypeHash(name string) (string, error) {
	if err := s.has(name, true); err != nil {
		return "", err
	}
	return s.Registry.TypeHash(name)
}

// has reports a type the set lacks, naming the distro; interfaces admits
// a whole service or action ("pkg/srv/X"), which only has a hash.
func (s *Set) has(name string, interfaces bool) error {
	full := fullName(name)
	known := s.Definition(full) != nil
	if interfaces && !known {
		known = s.Definition(full+"_Request") != nil || s.Definition(full+"_Goal") != nil
	}
	if !known {
		return fmt.Errorf("%w: %s has no %s", ErrNotInDistro, s.Distro, full)
	}
	return nil
}

// fullName turns "pkg/Type" into "pkg/msg/Type", as msgdef reads it.
func fullName(name string) string {
	if strings.Count(name, "/") == 1 {
		pkg, typ, _ := strings.Cut(name, "/")
		return pkg + "/msg/" + typ
	}
	return name
}
