package testutil

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// NpmGateway returns the path of a real MCP gateway from npm (supergateway,
// mcp-proxy) that .ci/gateways installs, pinned, into .cache/gateways.
// Without it the test is skipped, unless CI is set: then it fails.
func NpmGateway(t testing.TB, name string) string {
	t.Helper()
	_, self, _, _ := runtime.Caller(0)
	root := filepath.Dir(filepath.Dir(filepath.Dir(self)))
	p := filepath.Join(root, ".cache", "gateways", "node_modules", ".bin", name)
	if _, err := os.Stat(p); err == nil {
		return p
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("%s is not installed (CI is set: .ci/run installs it with .ci/gateways)", name)
	}
	t.Skipf("skipping: %s is not installed (bash .ci/gateways)", name)
	return ""
}

// NpmClients returns the node_modules directory into which .ci/gateways
// installs real MCP clients from npm (the TypeScript SDK, the Inspector,
// mcp-remote), pinned, apart from the gateways so that neither changes
// the other's dependencies; pkg must be installed there. Without it the
// test is skipped, unless CI is set: then it fails.
func NpmClients(t testing.TB, pkg string) string {
	t.Helper()
	_, self, _, _ := runtime.Caller(0)
	root := filepath.Dir(filepath.Dir(filepath.Dir(self)))
	dir := filepath.Join(root, ".cache", "clients", "node_modules")
	_, errPkg := os.Stat(filepath.Join(dir, pkg, "package.json"))
	_, errNode := exec.LookPath("node")
	if errPkg == nil && errNode == nil {
		return dir
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("%s (or node) is not installed (CI is set: .ci/run installs it with .ci/gateways)", pkg)
	}
	t.Skipf("skipping: %s (or node) is not installed (bash .ci/gateways)", pkg)
	return ""
}

// StartGateway starts a gateway that listens on the port it is given
// (command(port) is its command line) and returns its address once it
// accepts connections. Like StartNginx, it draws ports below Linux's
// ephemeral range and tries another when the gateway says the port was
// taken (EADDRINUSE). The gateway runs in a process group of its own, which
// the test's end kills with the children it started.
func StartGateway(t testing.TB, command func(port int) []string) string {
	t.Helper()
	var last string
	for range 10 {
		port := 20000 + rand.IntN(12000)
		addr, inUse, err := startGateway(t, command(port), "127.0.0.1:"+strconv.Itoa(port))
		if err == nil {
			return addr
		}
		last = err.Error()
		if !inUse {
			break
		}
	}
	t.Fatalf("start gateway: %s", last)
	return ""
}

// startGateway makes one attempt; inUse reports that the port was taken.
func startGateway(t testing.TB, argv []string, addr string) (string, bool, error) {
	out := &LockedWriter{W: new(bytes.Buffer)}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return "", false, fmt.Errorf("run %s: %w", argv[0], err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	stop := func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-exited
	}
	up := waitListening(addr, exited)
	select {
	case <-exited:
		s := out.String()
		inUse := strings.Contains(s, "EADDRINUSE") || strings.Contains(s, "address already in use") // node's words, Go's
		return "", inUse, fmt.Errorf("%s exited at start on %s:\n%s", argv[0], addr, s)
	default:
	}
	if !up {
		stop()
		return "", false, fmt.Errorf("%s did not listen on %s within %s:\n%s", argv[0], addr, WaitLong, out.String())
	}
	t.Cleanup(func() {
		stop()
		if t.Failed() {
			t.Logf("%s output:\n%s", argv[0], out.String())
		}
	})
	return addr, false, nil
}

// waitListening waits (within WaitLong) until addr accepts a connection,
// or the process whose end closes exited has ended; it reports whether
// something listens there.
func waitListening(addr string, exited <-chan struct{}) bool {
	return Poll(WaitLong, func() bool {
		select {
		case <-exited:
			return true
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		c, err := (&net.Dialer{}).DialContext(ctx, "tcp", addr)
		if err == nil {
			c.Close()
		}
		return err == nil
	})
}
