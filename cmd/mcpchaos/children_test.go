//go:build linux

package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/mcpchaos/mcpchaos/internal/testutil"
)

// TestLeftoverGrandchildren: a stdio server whose shell starts one child
// in a session of its own and detaches another at once (a double fork: it
// is an orphan before any probe reading) leaves both running after it
// exits. `mcpchaos run`, a child subreaper, adopts the detached one and
// remembers the other from its readings of the server's tree: both are
// leftover work, named in the summary, and killed at the end — or left
// running with --leave-children.
func TestLeftoverGrandchildren(t *testing.T) {
	t.Parallel()
	for _, leave := range []bool{false, true} {
		t.Run(fmt.Sprintf("leave %v", leave), func(t *testing.T) {
			t.Parallel()
			exe := bin.Need(t)
			dir := t.TempDir()
			quiet := "</dev/null >/dev/null 2>&1"
			script := fmt.Sprintf(`(setsid sleep 3142 %s &); setsid sleep 3143 %s & exec %q serve --stdio`, quiet, quiet, exe)
			scenario := fmt.Sprintf(`name: grandchildren
target:
  stdio: {command: [sh, -c, %q]}
load: {rate: 10/1s, duration: 500ms}
calls:
  - {tool: echo, arguments: {text: hi}}
orphans: {grace: 100ms}
`, script)
			path := filepath.Join(dir, "g.yaml")
			if err := os.WriteFile(path, []byte(scenario), 0o644); err != nil {
				t.Fatal(err)
			}
			args := []string{"run", path, "-q", "--summary-json", filepath.Join(dir, "s.json")}
			if leave {
				args = append(args, "--leave-children")
			}
			out, err := exec.Command(exe, args...).CombinedOutput()
			var exit *exec.ExitError
			if err != nil && !(errors.As(err, &exit) && exit.ExitCode() == 1) {
				t.Fatalf("run: %v\n%s", err, out)
			}
			// The leftover work is a cancellation violation: exit 1.
			if err == nil {
				t.Errorf("run exited 0 with processes left running\n%s", out)
			}
			s := readJSON(t, filepath.Join(dir, "s.json"))
			notes, _ := lookup(s, "cancellation.server_processes.notes")
			said := fmt.Sprint(notes)
			var pids []int
			for _, m := range regexp.MustCompile(`process (\d+) \(sleep\), started by a server`).FindAllStringSubmatch(said, -1) {
				pid, _ := strconv.Atoi(m[1])
				pids = append(pids, pid)
			}
			if leave {
				t.Cleanup(func() {
					for _, pid := range pids {
						_ = syscall.Kill(pid, syscall.SIGKILL)
					}
				})
			}
			if n := num(t, s, "cancellation.server_processes.leftover"); n != 2 || len(pids) != 2 {
				t.Fatalf("leftover %v, sleeps named %v; want both sleeps\nnotes: %s\n%s", n, pids, said, out)
			}
			if left, _ := lookup(s, "cancellation.server_processes.left_running"); left != leave {
				t.Errorf("left_running %v, want %v", left, leave)
			}
			if !strings.Contains(string(out), "started by a server, still running after the servers exited") {
				t.Errorf("the text summary does not name the leftover processes:\n%s", out)
			}
			for _, pid := range pids {
				if leave {
					if !testutil.ProcessRunning(pid) {
						t.Errorf("process %d was left running but is gone", pid)
					}
					continue
				}
				testutil.Eventually(t, fmt.Sprintf("leftover process %d to be gone", pid), func() bool { return !testutil.ProcessRunning(pid) })
			}
		})
	}
}
