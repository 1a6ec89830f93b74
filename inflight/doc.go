// Package inflight is the bbolt store of previews, motions, idempotency keys
// and the audit log; a motion record is durable before its goal is published.
//
// One file, one owner: Open takes bbolt's exclusive lock (ErrLocked for a
// second bridge) and refuses files it cannot trust (ErrReadOnly, ErrCorrupt,
// ErrNewerFormat). A confirm's claim (ConfirmPreview) and a motion's
// terminal or unknown state are the write-ahead steps: one line appended to
// a journal beside the file with fdatasync before the call returns
// (journal.go), copied into bbolt by a flusher soon after, applied by Open
// if the process died first. New previews and open progress are accepted
// without waiting for the disk; Claim and the other writes commit bbolt
// with fsync; audit appends share batched commits. Previews a flush
// committed stay decoded in memory (bounded), since a confirm reads its
// preview twice. Records are JSON stamped with a version; the file carries
// a format number and migrate is the hook for changing it. Retention
// (Compact, RunRetention) deletes finished records in small transactions;
// bbolt reuses the freed pages but never shrinks the file, so Open rewrites
// a file that is mostly free space.
package inflight
