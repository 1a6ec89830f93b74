// Package wire is the RTPS 2.x wire format (OMG DDSI-RTPS 2.5, chapter 9):
// the message header, the submessages, parameter lists and the small types
// they carry.
//
// Four API shapes, one per kind of thing on the wire:
//   - whole units, Message and Header: Marshal or AppendTo to write,
//     the Unmarshal method to read into the value;
//   - submessages, one type each behind the Submessage interface:
//     AppendSubmessage writes any of them, UnmarshalSubmessage reads the
//     next one and says how many bytes it took;
//   - parameter lists: ParameterList.AppendTo and UnmarshalParameterList
//     (which also returns the bytes taken), with Get/GetVendor/All for
//     lookups;
//   - parameter values of the types the lists carry (strings, octets,
//     locators, durations, uint32): Append/Parse or Value/Unmarshal pairs
//     that take the list's byte order.
//
// Parsing never panics and never allocates more than the input could hold:
// every length and count read from the input is checked against the bytes
// left first. Parsed values alias the input buffer (payloads, parameter
// values); copy them if the buffer is reused.
package wire
