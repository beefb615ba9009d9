//go:build race

package client

// raceBuild: built with -race. The race detector learns that one
// goroutine's socket write comes before another's read of it from the
// runtime's poller (internal/poll marks every read and write of a socket);
// raw socket I/O (rawconn_linux.go) bypasses those marks, so in a race
// build a test's in-process server would be reported racing with the
// test for data the request itself ordered. A race build therefore keeps
// the poller's path for its connections; TestRawTCP still drives the
// raw path directly, and .ci/run runs the client package without -race
// too, so the path connections take in a normal build is tested.
const raceBuild = true
