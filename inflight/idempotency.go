package inflight

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"
)

// maxKeyBytes bounds a planner-chosen idempotency key.
const maxKeyBytes = 256

// idempotent is the stored record of one reversible write.
type idempotent struct {
	Version    int             `json:"v"`
	ArgsDigest string          `json:"args_digest"`
	Result     json.RawMessage `json:"result"`
	At         time.Time       `json:"at"`
}

// Remember stores the result of a reversible write under key, durably
// (fsync) before the caller answers, so a retry after a crash replays it.
// The first result for a key is kept; the same key with another argsDigest
// is ErrKeyReused.
func (s *Store) Remember(ctx context.Context, key, argsDigest string, result json.RawMessage) error {
	switch {
	case key == "" || len(key) > maxKeyBytes:
		return fmt.Errorf("%w: idempotency key must be 1..%d bytes", ErrInvalidRecord, maxKeyBytes)
	case argsDigest == "":
		return fmt.Errorf("%w: idempotency key %q: args_digest is empty", ErrInvalidRecord, key)
	case !json.Valid(result):
		return fmt.Errorf("%w: idempotency key %q: result is not valid JSON", ErrInvalidRecord, key)
	}
	return s.update(ctx, func(tx *bolt.Tx) (bool, error) {
		keys, err := bucket(tx, bucketKeys)
		if err != nil {
			return false, err
		}
		if old, found, err := loadKey(keys, key); err != nil || found {
			if err == nil && old.ArgsDigest != argsDigest {
				err = reused(key)
			}
			return false, err
		}
		b, err := json.Marshal(idempotent{Version: recordVersion, ArgsDigest: argsDigest, Result: result, At: s.now()})
		if err != nil {
			return false, fmt.Errorf("%w: idempotency key %q: %v", ErrInvalidRecord, key, err)
		}
		return true, keys.Put([]byte(key), b)
	})
}

// Lookup returns the remembered result for key. found=false means run the
// write; a key remembered with another argsDigest is ErrKeyReused (the
// bridge answers invalid_argument).
func (s *Store) Lookup(key, argsDigest string) (result json.RawMessage, found bool, err error) {
	err = s.view(func(tx *bolt.Tx) error {
		keys, err := bucket(tx, bucketKeys)
		if err != nil {
			return err
		}
		rec, ok, err := loadKey(keys, key)
		switch {
		case err != nil || !ok:
			return err
		case rec.ArgsDigest != argsDigest:
			return reused(key)
		}
		result, found = rec.Result, true
		return nil
	})
	if err != nil {
		return nil, false, err
	}
	return result, found, nil
}

func reused(key string) error {
	return fmt.Errorf("%w: key %q was first used with other arguments; pick a new key", ErrKeyReused, key)
}

func loadKey(keys *bolt.Bucket, key string) (idempotent, bool, error) {
	if key == "" || len(key) > maxKeyBytes {
		return idempotent{}, false, nil
	}
	v := keys.Get([]byte(key))
	if v == nil {
		return idempotent{}, false, nil
	}
	var rec idempotent
	if err := json.Unmarshal(v, &rec); err != nil {
		return idempotent{}, false, fmt.Errorf("%w: idempotency record %q: %v", ErrCorrupt, key, err)
	}
	if rec.Version > recordVersion {
		return idempotent{}, false, fmt.Errorf("%w: idempotency record %q is version %d", ErrNewerFormat, key, rec.Version)
	}
	return rec, true, nil
}
