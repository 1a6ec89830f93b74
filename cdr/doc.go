// Package cdr encodes and decodes XCDR1 ("classic CDR") data, the payload
// format DDS uses on the wire, for types described at run time.
//
// A [Struct] describes a type (fields of primitives, strings, fixed arrays,
// bounded and unbounded sequences and nested structs); a [Message] holds a
// value of it with the fields in definition order. [Encode] writes the
// 4-byte encapsulation header and the body, little or big endian, aligning
// every primitive to its size (at most 8) counted from the end of the header.
// [Decode] reads any of the two classic encodings back and never panics or
// allocates more than the input could hold, whatever the bytes.
//
// The package knows nothing of ROS: names and conventions belong above it.
package cdr
