package cdr

import (
	"errors"
	"strconv"
	"strings"
)

// Errors returned by this package, wrapped with the path of the field at
// fault; compare with errors.Is.
var (
	// ErrInvalidType reports a type description that cannot be encoded.
	ErrInvalidType = errors.New("cdr: invalid type")
	// ErrEncapsulation reports an encapsulation header other than CDR_BE or CDR_LE.
	ErrEncapsulation = errors.New("cdr: unsupported encapsulation")
	// ErrTruncated reports data that ends before the value does.
	ErrTruncated = errors.New("cdr: data truncated")
	// ErrBound reports a string or sequence longer than its bound, or a
	// length that the remaining data cannot hold.
	ErrBound = errors.New("cdr: length exceeds bound")
	// ErrInvalidValue reports bytes that are no valid value of the type
	// (a bool other than 0 or 1, a string without its NUL terminator).
	ErrInvalidValue = errors.New("cdr: invalid value")
	// ErrValueType reports a Go value that does not match the field's type.
	ErrValueType = errors.New("cdr: value does not match type")
	// ErrTooLarge reports data whose decoded value would take more memory
	// than Decode allows (see DecodeLimit).
	ErrTooLarge = errors.New("cdr: decoded value too large")
)

// fieldError prefixes err with the field name, so that the innermost
// field comes last: "cdr: points[2].positions: data truncated".
type fieldError struct {
	path string
	err  error
}

func (e *fieldError) Error() string {
	return "cdr: " + e.path + ": " + strings.TrimPrefix(e.err.Error(), "cdr: ")
}

func (e *fieldError) Unwrap() error { return e.err }

func inField(name string, err error) error {
	if fe, ok := err.(*fieldError); ok {
		sep := "."
		if len(fe.path) > 0 && fe.path[0] == '[' {
			sep = ""
		}
		return &fieldError{path: name + sep + fe.path, err: fe.err}
	}
	return &fieldError{path: name, err: err}
}

func inElement(i int, err error) error {
	return inField("["+strconv.Itoa(i)+"]", err)
}
