// Package wire is the RTPS 2.x wire format (OMG DDSI-RTPS 2.5, chapter 9):
// the message header, the submessages, parameter lists and the small types
// they carry, each with a Marshal/Unmarshal pair.
//
// Parsing never panics and never allocates more than the input could hold:
// every length and count read from the input is checked against the bytes
// left first. Parsed values alias the input buffer (payloads, parameter
// values); copy them if the buffer is reused.
package wire
