package rostest

import "syscall"

// sysProcAttr makes the kernel kill children if the test binary dies first,
// so a crashed test leaves no master behind.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
