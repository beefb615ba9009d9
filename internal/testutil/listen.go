package testutil

import (
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// LogStderr wraps command so that the process's stderr goes to a file of
// the test's own; read it with the returned function. The process keeps its
// pid (sh execs it), its stdin and its stdout. It serves to learn what a
// process that the code under test starts says on stderr, such as the
// address it bound with port 0.
func LogStderr(t testing.TB, command []string) (wrapped []string, read func() string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "stderr.log")
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	script := `exec "$0" "$@" 2>>'` + strings.ReplaceAll(path, `'`, `'\''`) + `'`
	wrapped = append([]string{"/bin/sh", "-c", script}, command...)
	return wrapped, func() string {
		b, _ := os.ReadFile(path)
		return string(b)
	}
}

var serveMetrics = regexp.MustCompile(`metrics on (http://\S+/metrics)`)

// ServeMetricsURL returns the metrics URL that the last status line of
// `mcpchaos serve` in stderr names ("" when there is none yet). With
// --listen or --metrics-listen 127.0.0.1:0 the line tells the port the
// process bound.
func ServeMetricsURL(stderr string) string {
	all := serveMetrics.FindAllStringSubmatch(stderr, -1)
	if len(all) == 0 {
		return ""
	}
	return all[len(all)-1][1]
}

// ClosedAddr returns a loopback address nothing listens on (a port bound
// and released at once), for tests of a connection that is refused. Only
// for that: a server must be given its listener, never a port found so.
func ClosedAddr(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}
