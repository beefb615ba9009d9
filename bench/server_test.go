package bench

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// The servers a benchmark starts: `mcpchaos serve` (or another program)
// in its own process, pinned to a CPU of its own under
// MCPCHAOS_BENCH_PIN=1.

// CPUs for MCPCHAOS_BENCH_PIN=1: the server on one, the client on the
// other, so neither waits for the other's CPU time (a diagnosis: the
// figures that matter are taken unpinned, as users run).
const serverCPU, clientCPU = "1", "0"

// pinned returns the command, run under `taskset -c CPU` when
// MCPCHAOS_BENCH_PIN=1 (taskset execs it: the pid is the command's).
func pinned(cpu, name string, args ...string) *exec.Cmd {
	if os.Getenv("MCPCHAOS_BENCH_PIN") == "1" {
		return exec.Command("taskset", append([]string{"-c", cpu, name}, args...)...)
	}
	return exec.Command(name, args...)
}

// server is `mcpchaos serve` running in its own process.
type server struct {
	cmd        *exec.Cmd
	URL        string
	MetricsURL string
	done       chan struct{}
	mu         sync.Mutex
	tail       []string // its stderr lines
	once       sync.Once
	cpu        time.Duration
}

var listening = regexp.MustCompile(`MCP on (http://\S+), metrics on (http://\S+) `)

// startServer starts `mcpchaos serve` on a free loopback port with the
// given knobs; it is stopped when the benchmark ends.
func startServer(b *testing.B, knobs ...string) *server {
	b.Helper()
	s, m := startListening(b, serverCPU, listening, append([]string{"serve", "--listen", "127.0.0.1:0"}, knobs...)...)
	s.URL, s.MetricsURL = m[0], m[1]
	return s
}

// startListening starts `mcpchaos ARGS...` (pinned to cpu under
// MCPCHAOS_BENCH_PIN=1) and waits up to 10 s for a line of its stderr
// that says where it listens; it returns re's submatches of that line.
// The process is stopped when the benchmark ends.
func startListening(b *testing.B, cpu string, re *regexp.Regexp, args ...string) (*server, []string) {
	b.Helper()
	return startProgram(b, cpu, re, nil, bin, args...)
}

// startProgram is startListening for any program, with env added to its
// environment.
func startProgram(b *testing.B, cpu string, re *regexp.Regexp, env []string, prog string, args ...string) (*server, []string) {
	b.Helper()
	s := &server{cmd: pinned(cpu, prog, args...), done: make(chan struct{})}
	if len(env) > 0 {
		s.cmd.Env = append(os.Environ(), env...)
	}
	stderr, err := s.cmd.StderrPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := s.cmd.Start(); err != nil {
		b.Fatalf("start %s %v: %v", prog, args, err)
	}
	b.Cleanup(s.stop)
	ready := make(chan []string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			line := sc.Text()
			s.mu.Lock()
			if len(s.tail) < 100 {
				s.tail = append(s.tail, line)
			}
			s.mu.Unlock()
			if m := re.FindStringSubmatch(line); m != nil {
				select {
				case ready <- m[1:]:
				default:
				}
			}
		}
		close(s.done)
	}()
	select {
	case m := <-ready:
		return s, m
	case <-s.done:
		b.Fatalf("%s %v exited: %s", prog, args, s.stderr())
	case <-time.After(10 * time.Second):
		b.Fatalf("%s %v did not say where it listens within 10s: %s", prog, args, s.stderr())
	}
	return nil, nil
}

func (s *server) stderr() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Join(s.tail, "\n")
}

// stop interrupts the server (SIGKILL after 5 s) and keeps its CPU time.
func (s *server) stop() {
	s.once.Do(func() {
		_ = s.cmd.Process.Signal(os.Interrupt)
		t := time.AfterFunc(5*time.Second, func() { _ = s.cmd.Process.Kill() })
		<-s.done
		_ = s.cmd.Wait()
		t.Stop()
		if ps := s.cmd.ProcessState; ps != nil {
			s.cpu = ps.UserTime() + ps.SystemTime()
		}
	})
}

// rusage reads a live process's CPU time (user+sys) from /proc.
func procCPU(pid int) (time.Duration, error) {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// Fields after the command name, which is in parentheses.
	s := string(raw)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	if len(f) < 13 {
		return 0, fmt.Errorf("short /proc/%d/stat", pid)
	}
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	const hz = 100 // USER_HZ on Linux
	return time.Duration(utime+stime) * time.Second / hz, nil
}
