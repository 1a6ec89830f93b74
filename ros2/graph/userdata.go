package graph

import (
	"strings"
)

// UserDataValue returns the value of key in user data of rmw's form,
// "key=value;" pairs ("enclave=/;", "typehash=RIHS01_…;").
func UserDataValue(ud []byte, key string) (string, bool) {
	for pair := range strings.SplitSeq(string(ud), ";") {
		k, v, ok := strings.Cut(pair, "=")
		if ok && k == key {
			return v, true
		}
	}
	return "", false
}

// ParticipantUserData is the user data rmw gives a participant: its
// security enclave ("/" by default). CycloneDDS's rmw adds to its graph
// only participants that carry it.
func ParticipantUserData(enclave string) []byte {
	return []byte("enclave=" + enclave + ";")
}

// EndpointUserData is the user data rmw gives an endpoint from Iron on:
// the RIHS01 hash of its type. Humble's rmw sends none (pass "").
func EndpointUserData(typeHash string) []byte {
	if typeHash == "" {
		return nil
	}
	return []byte("typehash=" + typeHash + ";")
}
