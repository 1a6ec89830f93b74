package msgdef

import (
	"errors"
	"fmt"
)

// Errors returned by this package; parse errors are wrapped with file:line.
var (
	// ErrSyntax reports a line that is no valid field, constant or separator.
	ErrSyntax = errors.New("msgdef: syntax error")
	// ErrUnknownType reports a nested type no definition in the registry provides.
	ErrUnknownType = errors.New("msgdef: unknown type")
	// ErrCycle reports a type that contains itself.
	ErrCycle = errors.New("msgdef: type contains itself")
	// ErrDuplicate reports a definition added twice to a registry.
	ErrDuplicate = errors.New("msgdef: duplicate definition")
	// ErrDescription reports a type description that is malformed or
	// outside this package's bounds.
	ErrDescription = errors.New("msgdef: bad type description")
	// ErrHashMismatch reports a type description whose types do not hash
	// to the hash announced for the type.
	ErrHashMismatch = errors.New("msgdef: type description does not match its hash")
)

// lineError places err at file:line.
func lineError(file string, line int, err error, format string, args ...any) error {
	return fmt.Errorf("%s:%d: %w: %s", file, line, err, fmt.Sprintf(format, args...))
}
