package ddspeers

import (
	"os"
	"path/filepath"
	"runtime"

	"github.com/actbridge/actbridge/cdr"
	"github.com/actbridge/actbridge/ros2/msgdef"
)

// CorpusDir is where Debian's ros2-test-interface-files puts rosidl's test
// definitions (package test_interface_files).
const CorpusDir = "/usr/share/test_interface_files"

// sourceDir is this package's folder, where the peer sources live.
func sourceDir() string {
	// The peers live in peers/ below it: Go refuses C files beside Go files.
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(file)
}

// Registry returns the definitions the peers know: rosidl's test corpus
// (when installed), the types the bridge uses (ros2/msgdef's testdata)
// and edge cases of our own (testdata/peer_test_msgs).
func Registry() (*msgdef.Registry, error) {
	r := msgdef.NewRegistry()
	for _, tree := range []string{
		filepath.Join(sourceDir(), "..", "..", "ros2", "msgdef", "testdata"),
		filepath.Join(sourceDir(), "testdata"),
	} {
		if err := r.AddTree(tree); err != nil {
			return nil, err
		}
	}
	if _, err := os.Stat(CorpusDir); err == nil {
		if err := r.AddPackage("test_interface_files", CorpusDir); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// PeerTypes returns every type of r the peers carry: all of them except
// those holding a wide string, whose wire form the two vendors' rmw
// layers disagree on (UTF-16 for Cyclone, 4-byte wchar_t for Fast DDS).
func PeerTypes(r *msgdef.Registry) ([]*cdr.Struct, error) {
	var out []*cdr.Struct
	for _, n := range r.Names() {
		s, err := r.Struct(n)
		if err != nil {
			return nil, err
		}
		if !hasWString(s) {
			out = append(out, s)
		}
	}
	return out, nil
}

func hasWString(s *cdr.Struct) bool {
	for i := range s.NumField() {
		t := s.Field(i).Type
		if t.Kind == cdr.WString || (t.Struct != nil && hasWString(t.Struct)) {
			return true
		}
	}
	return false
}
