//go:build linux

package inflight

import "syscall"

// dropMapping is madvise(MADV_DONTNEED) over size bytes at addr: for a
// shared, read-only file mapping it unmaps the pages without changing them.
func dropMapping(addr uintptr, size int64) error {
	if addr == 0 || size <= 0 {
		return nil
	}
	if _, _, errno := syscall.Syscall(syscall.SYS_MADVISE, addr, uintptr(size), syscall.MADV_DONTNEED); errno != 0 {
		return errno
	}
	return nil
}
