// Package inflight is the bbolt store of previews, motions, idempotency keys
// and the audit log; a motion record is durable before its goal is published.
//
// What is durable when: a confirm (ConfirmPreview) and a motion's terminal or
// unknown state are one bbolt commit with fsync before the call returns;
// previews, open progress (sent, active, progress) and audit lines share
// batched commits (DB.Batch, also fsynced), and losing the last of them to a
// crash only leaves a motion at an earlier open state or a preview to redo.
//
// One file, one owner: Open takes bbolt's exclusive lock (ErrLocked for a
// second bridge) and refuses files it cannot trust (ErrReadOnly, ErrCorrupt,
// ErrNewerFormat). Records are JSON stamped with a version; the file carries
// a format number and migrate is the hook for changing it. Retention
// (Compact, RunRetention) deletes finished records in small transactions;
// bbolt reuses the freed pages but never shrinks the file, so Open rewrites
// a file that is mostly free space.
package inflight
