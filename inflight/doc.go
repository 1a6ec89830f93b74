// Package inflight is the bbolt store of previews, motions, idempotency keys
// and the audit log; a motion record is durable before its goal is published.
package inflight
