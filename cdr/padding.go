package cdr

// Pad returns an encoded payload (as Encode returns it) padded with zeros
// to a multiple of 4 bytes, the padding counted in the low two bits of the
// encapsulation options: the form CycloneDDS puts on the wire, which lets
// a reader find where the value ends. Decode reads either form. Like
// append, Pad works in place: use its result, not payload, afterwards.
func Pad(payload []byte) []byte {
	if len(payload) < headerSize {
		return payload
	}
	n := (4 - len(payload)%4) % 4
	for range n {
		payload = append(payload, 0)
	}
	payload[3] = payload[3]&^3 | byte(n)
	return payload
}
