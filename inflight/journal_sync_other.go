//go:build !linux

package inflight

import "os"

// datasync is fsync where fdatasync is not offered.
func datasync(f *os.File) error { return f.Sync() }
