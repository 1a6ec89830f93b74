// Package inflight is the bbolt store of previews, motions, idempotency keys
// and the audit log; a motion record is durable before its goal is published.
//
// Durable when the call returns: a confirm and a terminal or unknown state (one bbolt commit, fsync).
// Previews and open progress also return durable, sharing commits (DB.Batch); audit lines follow in batches.
//
// One file, one owner: Open takes bbolt's exclusive lock (ErrLocked for a
// second bridge) and refuses files it cannot trust (ErrReadOnly, ErrCorrupt,
// ErrNewerFormat, and ErrOldJournal while an older build's journal holds records). Records are JSON stamped with a version; the file carries
// a format number and migrate is the hook for changing it. Retention
// (Compact, RunRetention) deletes finished records in small transactions;
// bbolt reuses the freed pages but never shrinks the file, so Open rewrites
// a file that is mostly free space.
package inflight
