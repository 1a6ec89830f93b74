//go:build !linux

package rostest

import "syscall"

func sysProcAttr() *syscall.SysProcAttr { return nil }
