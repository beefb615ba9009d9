//go:build !linux

package client

import "net"

// rawSockets returns nc as it is: raw socket reads and writes are Linux's
// here (rawconn_linux.go).
func rawSockets(nc net.Conn) net.Conn { return nc }

// tcpOf returns the *net.TCPConn under nc, if there is one.
func tcpOf(nc net.Conn) *net.TCPConn {
	tc, _ := nc.(*net.TCPConn)
	return tc
}

// pendingIn returns 0: how many bytes wait in a socket is asked of Linux
// only (rawconn_linux.go).
func pendingIn(*net.TCPConn) int { return 0 }
