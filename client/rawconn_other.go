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

// peekIn returns nothing: the bytes waiting in a socket are peeked at on
// Linux only (rawconn_linux.go).
func peekIn(*net.TCPConn, []byte) []byte { return nil }
