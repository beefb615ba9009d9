package testutil

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// NginxBinary returns the path of Debian's nginx (`.ci/run` installs
// nginx-light). Without one the test is skipped, unless CI is set: then
// it fails, so a CI machine without nginx cannot pass by skipping.
func NginxBinary(t testing.TB) string {
	t.Helper()
	if p, err := exec.LookPath("nginx"); err == nil {
		return p
	}
	if _, err := os.Stat("/usr/sbin/nginx"); err == nil {
		return "/usr/sbin/nginx"
	}
	if os.Getenv("CI") != "" {
		t.Fatal("nginx is not installed (CI is set: .ci/run installs Debian's nginx-light)")
	}
	t.Skip("skipping: nginx is not installed (apt-get install nginx-light)")
	return ""
}

// Nginx is an nginx started by StartNginx, stopped when the test ends.
type Nginx struct {
	Addr   string // 127.0.0.1:PORT, where it listens
	Dir    string // its prefix directory: the config, pid and temp files
	stderr *LockedWriter
}

// URL returns http://Addr + path.
func (n *Nginx) URL(path string) string { return "http://" + n.Addr + path }

// Stderr returns what nginx wrote on stderr (its error log, in our
// configurations) so far.
func (n *Nginx) Stderr() string { return n.stderr.String() }

// StartNginx starts nginx in the foreground (the configuration must say
// `daemon off`) with conf, an nginx.conf whose relative paths are under
// the prefix, a fresh directory in t.TempDir(). Before it is written,
// every occurrence of listen (an address such as "127.0.0.1:8000") in
// conf is replaced with a free loopback address, and each key of replace
// with its value (the upstreams' addresses). nginx binds the port itself,
// so a port that another process took in between is seen ("Address
// already in use") and another one tried. Ports are drawn below Linux's
// ephemeral range, which the kernel never hands out to connections.
func StartNginx(t testing.TB, conf, listen string, replace map[string]string) *Nginx {
	t.Helper()
	bin := NginxBinary(t)
	for k, v := range replace {
		conf = strings.ReplaceAll(conf, k, v)
	}
	var lastErr string
	for attempt := 0; attempt < 10; attempt++ {
		addr := "127.0.0.1:" + strconv.Itoa(20000+rand.IntN(12000))
		n, inUse, err := startNginx(t, bin, strings.ReplaceAll(conf, listen, addr), addr)
		if err == nil {
			return n
		}
		lastErr = err.Error()
		if !inUse {
			break
		}
	}
	t.Fatalf("start nginx: %s", lastErr)
	return nil
}

// startNginx makes one attempt on addr; inUse reports that the port was
// taken.
func startNginx(t testing.TB, bin, conf, addr string) (n *Nginx, inUse bool, err error) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "logs"), 0o755); err != nil { // nginx opens logs/error.log before it reads the config
		return nil, false, err
	}
	file := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(file, []byte(conf), 0o644); err != nil {
		return nil, false, err
	}
	n = &Nginx{Addr: addr, Dir: dir, stderr: &LockedWriter{W: new(bytes.Buffer)}}
	cmd := exec.Command(bin, "-p", dir+"/", "-c", file)
	cmd.Stdout, cmd.Stderr = n.stderr, n.stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // its workers are in its group
	if err := cmd.Start(); err != nil {
		return nil, false, fmt.Errorf("run %s: %w", bin, err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	stop := func() {
		_ = cmd.Process.Signal(syscall.SIGTERM) // fast shutdown: the master stops its workers
		select {
		case <-exited:
		case <-time.After(WaitLong):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-exited
		}
	}
	up := waitListening(addr, exited)
	select {
	case <-exited:
		out := n.stderr.String()
		return nil, strings.Contains(out, "Address already in use"), fmt.Errorf("nginx exited at start on %s:\n%s", addr, out)
	default:
	}
	if !up {
		stop()
		return nil, false, fmt.Errorf("nginx did not listen on %s within %s:\n%s", addr, WaitLong, n.stderr.String())
	}
	t.Cleanup(func() {
		stop()
		if t.Failed() {
			t.Logf("nginx stderr:\n%s", n.stderr.String())
		}
	})
	return n, false, nil
}
