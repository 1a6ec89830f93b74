package inflight

import "errors"

// Errors returned by the store. They are wrapped with detail (path, id,
// states); compare with errors.Is, never by message.
var (
	// ErrLocked: another process (usually a running bridge) holds the file.
	ErrLocked = errors.New("inflight: store is locked by another process")
	// ErrReadOnly: the file or the Store is read-only; nothing can be written.
	ErrReadOnly = errors.New("inflight: store is read-only")
	// ErrCorrupt: the file is not a valid bbolt file or not an actbridge store.
	ErrCorrupt = errors.New("inflight: store file is corrupt or not an actbridge store")
	// ErrNewerFormat: a newer actbridge wrote the file; this build must not touch it.
	ErrNewerFormat = errors.New("inflight: store was written by a newer actbridge")
	// ErrOldJournal: a build from before the journal's removal left records
	// in its journal beside the file; that build must apply them first.
	ErrOldJournal = errors.New("inflight: store has an old journal this build does not apply")
	// ErrClosed: the Store was closed.
	ErrClosed = errors.New("inflight: store is closed")

	// ErrNotFound: no record with that id or key.
	ErrNotFound = errors.New("inflight: not found")
	// ErrInvalidRecord: a record handed to the store is incomplete or malformed.
	ErrInvalidRecord = errors.New("inflight: invalid record")
	// ErrDuplicate: a record with that id exists and ids are never reused.
	ErrDuplicate = errors.New("inflight: id already exists")
	// ErrInvalidJSON: Canonical was given something that is not one JSON value.
	ErrInvalidJSON = errors.New("inflight: invalid JSON")
	// ErrInvalidTransition: the motion state machine does not allow the move.
	ErrInvalidTransition = errors.New("inflight: invalid state transition")

	// ErrPreviewUsed: the preview was consumed already; the returned
	// Preview's UsedBy names the motion it started.
	ErrPreviewUsed = errors.New("inflight: preview already used")
	// ErrPreviewExpired: the preview's ExpiresAt has passed.
	ErrPreviewExpired = errors.New("inflight: preview expired")
	// ErrKeyReused: an idempotency key came back with different arguments.
	ErrKeyReused = errors.New("inflight: idempotency key reused with different arguments")
	// ErrBadCursor: a cursor this store did not issue (or issued for another list).
	ErrBadCursor = errors.New("inflight: invalid cursor")
)
