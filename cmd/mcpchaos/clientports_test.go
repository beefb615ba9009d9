//go:build linux

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpchaos/mcpchaos/report"
)

// portsNamespace is the shell that runs mcpchaos in a network namespace
// of its own whose ephemeral port range is ten ports wide: loopback is
// brought up, the range narrowed (a per-namespace sysctl), and mcpchaos
// exec'd with the arguments after it.
const portsNamespace = `ip link set lo up && echo "40000 40009" > /proc/sys/net/ipv4/ip_local_port_range && exec "$0" "$@"`

// TestRunOutOfLocalPorts runs the real binary in a network namespace of
// its own (unshare -n as root, or unshare -rn where user namespaces are
// allowed) with ten ephemeral ports, and
// about 100 calls of 1 s in flight over HTTP/1.1 against the built-in
// target, served in the same process: each call in flight holds a
// connection, and every connection past the tenth finds no local port
// (EADDRNOTAVAIL). Those calls must end client_limit with the limit
// "ports", not transport_error; no verdict may blame the server; the
// summary must name the limit and how to widen it; and the run must fail
// with exit status 3. The target's listeners take two of the ten ports.
// Without a namespace of its own it skips, unless CI is set.
func TestRunOutOfLocalPorts(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the real binary with 200 calls")
	}
	// A network namespace of our own: as root, or as the root of a user
	// namespace of our own where the kernel allows one.
	var unshare []string
	var tried []string
	for _, u := range [][]string{{"unshare", "-n"}, {"unshare", "-rn"}} {
		err := exec.Command(u[0], append(u[1:], "sh", "-c", portsNamespace, "true")...).Run()
		if err == nil {
			unshare = u
			break
		}
		tried = append(tried, fmt.Sprintf("%s: %v", strings.Join(u, " "), err))
	}
	if unshare == nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("no network namespace with ten ports (%s); CI runs as root with iproute2, which .ci/run installs", strings.Join(tried, "; "))
		}
		t.Skipf("no network namespace of our own here (%s)", strings.Join(tried, "; "))
	}
	path := writeScenario(t, "ports.yaml", `name: ports
target: {builtin: {transport: http}}
load: {rate: 100/1s, duration: 2s, max_in_flight: 500}
timeouts: {idle: 10s, max: 20s}
calls: [{tool: slow_task, arguments: {steps: 1, step_ms: 1000}}]
orphans: {grace: 200ms}
`)
	sumPath := filepath.Join(t.TempDir(), "s.json")
	cmd := exec.CommandContext(t.Context(), unshare[0], append(unshare[1:], "sh", "-c", portsNamespace,
		bin.Need(t), "run", "-q", "--summary-json", sumPath, path)...)
	s, out := runAtClientLimit(t, cmd, sumPath, "ports", func(c report.ClientLimits) int { return c.Ports })
	if s.Calls.OK == 0 {
		t.Errorf("no call ok: the ten ports should have carried some\n%s", out)
	}
	if s.Calls.TransportError != 0 {
		t.Errorf("%d calls transport_error: a limit of our own counted against the server\n%s", s.Calls.TransportError, out)
	}
	t.Logf("mcpchaos run with ten local ports:\n%s", out)
	wantText(t, out, "Client limit", "ip_local_port_range", "assign requested address", "FAIL (the client ran out of local ports")
}
