//go:build linux

package transport

import (
	"net"
	"syscall"

	"golang.org/x/sys/unix"
)

// unsent is how many of the bytes written to c the peer has not yet
// acknowledged: what the kernel still holds for a client that does not
// read.
func unsent(c net.Conn) (int64, bool) {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return 0, false
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return 0, false
	}
	var n int
	var ierr error
	if err := raw.Control(func(fd uintptr) { n, ierr = unix.IoctlGetInt(int(fd), unix.SIOCOUTQ) }); err != nil || ierr != nil {
		return 0, false
	}
	return int64(n), true
}
