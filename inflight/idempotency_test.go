package inflight

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestIdempotencyKeyReplaysOnlyForTheSameArguments(t *testing.T) {
	path := testPath(t)
	s := openStore(t, path, Options{})
	ctx := context.Background()
	if err := s.Remember(ctx, "k1", "digest-a", json.RawMessage(`{"speed_scale":0.5}`)); err != nil {
		t.Fatal(err)
	}
	// The first result stays: a second Remember of the same write is a no-op.
	if err := s.Remember(ctx, "k1", "digest-a", json.RawMessage(`{"speed_scale":0.9}`)); err != nil {
		t.Fatal(err)
	}
	if err := s.Remember(ctx, "k1", "digest-b", json.RawMessage(`{}`)); !errors.Is(err, ErrKeyReused) {
		t.Errorf("Remember with other arguments = %v, want ErrKeyReused", err)
	}
	_ = s.Close()
	s = openStore(t, path, Options{}) // replays survive a restart

	cases := []struct {
		name, key, digest string
		wantFound         bool
		wantResult        string
		wantErr           error
	}{
		{"same key, same arguments", "k1", "digest-a", true, `{"speed_scale":0.5}`, nil},
		{"same key, other arguments", "k1", "digest-b", false, "", ErrKeyReused},
		{"unknown key", "k2", "digest-a", false, "", nil},
		{"empty key", "", "digest-a", false, "", nil},
	}
	for _, tc := range cases {
		result, found, err := s.Lookup(tc.key, tc.digest)
		if found != tc.wantFound || string(result) != tc.wantResult || !errors.Is(err, tc.wantErr) {
			t.Errorf("%s: Lookup = %s, %v, %v; want %s, %v, %v", tc.name, result, found, err, tc.wantResult, tc.wantFound, tc.wantErr)
		}
	}
}

func TestRememberRefusesUnusableKeys(t *testing.T) {
	s := openStore(t, testPath(t), Options{})
	for name, call := range map[string][3]string{
		"empty key":       {"", "d", `{}`},
		"oversized key":   {strings.Repeat("k", maxKeyBytes+1), "d", `{}`},
		"no digest":       {"k", "", `{}`},
		"result not JSON": {"k", "d", `{`},
	} {
		if err := s.Remember(context.Background(), call[0], call[1], json.RawMessage(call[2])); !errors.Is(err, ErrInvalidRecord) {
			t.Errorf("%s: Remember = %v, want ErrInvalidRecord", name, err)
		}
	}
}
