package stepserver

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// tsScript and tsModules locate the TypeScript SDK's step server and the
// node_modules directory .ci/tssdk installs its packages into, from this
// file's place in the repository.
func tsScript() (script, modules string) {
	_, self, _, _ := runtime.Caller(0)
	dir := filepath.Dir(self)
	root := filepath.Dir(filepath.Dir(dir))
	return filepath.Join(dir, "ts", "stepserver.mjs"), filepath.Join(root, ".cache", "tssdk", "node_modules")
}

// TSSDKMissing says what the TypeScript SDK's step server lacks on this
// machine (node, or the packages .ci/tssdk installs); nil when it can run.
func TSSDKMissing() error {
	if _, err := exec.LookPath("node"); err != nil {
		return fmt.Errorf("the tssdk step server needs node on PATH: %w", err)
	}
	_, modules := tsScript()
	for _, pkg := range []string{"@modelcontextprotocol/server", "@modelcontextprotocol/node", "zod"} {
		if _, err := os.Stat(filepath.Join(modules, pkg, "package.json")); err != nil {
			return fmt.Errorf("the tssdk step server needs %s in %s (bash .ci/tssdk installs it): %w", pkg, modules, err)
		}
	}
	return nil
}

// Command returns the command line that runs c's server, with Env and
// TruthEnv set in its environment: self, a binary that calls Serve when
// Env is set (a test binary's TestMain), for the Go SDKs; node running
// ts/stepserver.mjs on the packages .ci/tssdk installs for tssdk.
func Command(c Config, self string) ([]string, error) {
	if c.SDK != "tssdk" {
		return []string{self}, nil
	}
	if err := TSSDKMissing(); err != nil {
		return nil, err
	}
	script, modules := tsScript()
	return []string{"node", script, modules}, nil
}

// NeedCommand is Command for a test: without the TypeScript SDK the test
// is skipped, unless CI is set: then it fails.
func NeedCommand(tb testing.TB, c Config, self string) []string {
	tb.Helper()
	argv, err := Command(c, self)
	switch {
	case err == nil:
		return argv
	case os.Getenv("CI") != "":
		tb.Fatalf("%v (CI is set: .ci/run installs the packages with .ci/tssdk, and node must be on PATH)", err)
	default:
		tb.Skipf("skipping: %v", err)
	}
	return nil
}

// StartHTTP starts argv as c's server over HTTP and returns the URL it
// prints first, its pid and the function that stops it. The server has a
// minute to print its URL (a loaded machine starts node slowly).
func StartHTTP(tb testing.TB, c Config, argv []string) (url string, pid int, stop func()) {
	tb.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), Env+"="+c.String(), TruthEnv+"="+c.Truth)
	out, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		tb.Fatalf("start step server %s: %v", c, err)
	}
	stop = func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}
	line := make(chan string, 1)
	go func() {
		s, _ := bufio.NewReader(out).ReadString('\n')
		line <- strings.TrimSpace(s)
	}()
	select {
	case url = <-line:
	case <-time.After(time.Minute):
		stop()
		tb.Fatalf("step server %s printed no URL within a minute", c)
	}
	if !strings.HasPrefix(url, "http://") {
		stop()
		tb.Fatalf("step server %s printed %q, not a URL", c, url)
	}
	return url, cmd.Process.Pid, stop
}

// errNodeServed: Serve cannot run the tssdk server, node does.
var errNodeServed = errors.New("the tssdk step server runs on node: start it with stepserver.Command")
