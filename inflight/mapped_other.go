//go:build !linux

package inflight

// dropMapping does nothing where MADV_DONTNEED's meaning differs.
func dropMapping(uintptr, int64) error { return nil }
