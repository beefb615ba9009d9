package client

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// stdioTransport runs a server as a subprocess and speaks newline-delimited
// JSON-RPC on its stdin and stdout. One reader goroutine demultiplexes
// every answer by id and every progress notification by token.
type stdioTransport struct {
	c   *Client
	cfg *StdioConfig
	cmd *exec.Cmd

	wmu   sync.Mutex
	stdin *os.File
	wbuf  []byte

	stdout *os.File
	stderr *ring

	mu    sync.Mutex
	calls map[int64]*Call
	// unanswered holds the ids of calls forgotten without their final
	// response (we stopped them), with when we stopped them: an answer
	// for one of them later, written after the server read a fence sent
	// after the stop, is work that ran on (Stats.StaleAnswers). At most
	// maxUnanswered.
	unanswered unansweredCalls
	// unreadable holds, oldest first, calls sent as broken JSON: the server
	// cannot read their id, so it answers with a null id, in order.
	unreadable []*Call

	gate         readGate      // the stall_read fault closes it
	exited       chan struct{} // closed when the process has exited
	retired      chan struct{} // closed when it takes no new request (see Retired)
	retire       sync.Once
	cut          atomic.Bool   // we closed its stdin or killed it
	readEnd      chan struct{} // closed when the reader stopped
	exitErr      error
	exitCPU      time.Duration // user + system of the process and its reaped children, once reaped
	exitCPUKnown bool
	eofAt        time.Time // when stdin was closed, for the exit latency
	exitAt       time.Time
	// stopSignal is the signal close needed to end the server ("" when it
	// exited on stdin EOF); guarded by wmu.
	stopSignal string
}

func startStdio(ctx context.Context, c *Client, cfg *StdioConfig) (*stdioTransport, error) {
	if len(cfg.Command) == 0 {
		return nil, errors.New("mcp stdio: empty command")
	}
	t := &stdioTransport{c: c, cfg: cfg, calls: make(map[int64]*Call),
		exited: make(chan struct{}), retired: make(chan struct{}), readEnd: make(chan struct{})}
	size := cfg.StderrBytes
	if size <= 0 {
		size = 64 << 10
	}
	t.stderr = newRing(size)
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("mcp stdio: stdin pipe: %w", err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, fmt.Errorf("mcp stdio: stdout pipe: %w", err)
	}
	cmd := exec.Command(cfg.Command[0], cfg.Command[1:]...)
	cmd.Env = append(os.Environ(), cfg.Env...)
	cmd.Dir = cfg.Dir
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, t.stderr
	if cfg.StderrTap != nil {
		cmd.Stderr = io.MultiWriter(t.stderr, cfg.StderrTap())
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		for _, f := range []*os.File{inR, inW, outR, outW} {
			f.Close()
		}
		return nil, fmt.Errorf("mcp stdio: start %q: %w", cfg.Command, err)
	}
	inR.Close()
	outW.Close()
	t.cmd, t.stdin, t.stdout = cmd, inW, outR
	go t.reap()
	go t.read()
	return t, nil
}

func (t *stdioTransport) name() string { return "stdio" }

// PID returns the server's process id (stdio only), or 0.
func (c *Client) PID() int {
	if t, ok := c.tr.(*stdioTransport); ok {
		return t.cmd.Process.Pid
	}
	return 0
}

// Stderr returns the last bytes the server wrote to stderr (stdio only).
func (c *Client) Stderr() []byte {
	if t, ok := c.tr.(*stdioTransport); ok {
		return t.stderr.bytes()
	}
	return nil
}

// Exited is closed when a stdio server's process has exited (never for HTTP).
func (c *Client) Exited() <-chan struct{} {
	if t, ok := c.tr.(*stdioTransport); ok {
		return t.exited
	}
	return nil
}

// ExitCPU returns the CPU a stdio server's process used in all (user and
// system, its reaped children included), once it has exited and been
// reaped; false before that, when its wait failed, and for HTTP.
func (c *Client) ExitCPU() (time.Duration, bool) {
	t, ok := c.tr.(*stdioTransport)
	if !ok {
		return 0, false
	}
	select {
	case <-t.exited:
	default:
		return 0, false
	}
	t.wmu.Lock()
	defer t.wmu.Unlock()
	return t.exitCPU, t.exitCPUKnown
}

// Retired is closed when a stdio server will take no new request: its
// stdin was closed, it was sent SIGKILL, or it exited (never for HTTP). Its
// calls in flight still end on their own; new calls belong on a new
// process.
func (c *Client) Retired() <-chan struct{} {
	if t, ok := c.tr.(*stdioTransport); ok {
		return t.retired
	}
	return nil
}

// Cut reports whether this client ended its stdio server's input or killed
// it (a disconnect, or Close), as opposed to the server exiting on its own.
func (c *Client) Cut() bool {
	t, ok := c.tr.(*stdioTransport)
	return ok && t.cut.Load()
}

func (t *stdioTransport) markRetired() { t.retire.Do(func() { close(t.retired) }) }

// ExitLatency returns how long a stdio server took to exit after its stdin
// was closed, or -1 when that was not seen.
func (c *Client) ExitLatency() time.Duration {
	t, ok := c.tr.(*stdioTransport)
	if !ok {
		return -1
	}
	select {
	case <-t.exited:
	default:
		return -1
	}
	t.wmu.Lock()
	defer t.wmu.Unlock()
	if t.eofAt.IsZero() {
		return -1
	}
	return t.exitAt.Sub(t.eofAt)
}

func (t *stdioTransport) reap() {
	err := t.cmd.Wait()
	t.wmu.Lock()
	t.exitErr, t.exitAt = err, time.Now()
	if st := t.cmd.ProcessState; st != nil {
		t.exitCPU, t.exitCPUKnown = st.UserTime()+st.SystemTime(), true
	}
	t.wmu.Unlock()
	close(t.exited)
	t.markRetired()
}

// ErrStdinClosed is what a write to a stdio server returns once its stdin
// is closed (a disconnect, Call.Abort with AbortClose, or the end of the
// run): the server read EOF there, and nothing written after it reaches
// it. A cancel that fails so never reached the server: what stopped the
// call, for the server, was the stdin's close.
var ErrStdinClosed = errors.New("server stdin is closed")

// write sends one message line.
func (t *stdioTransport) write(ctx context.Context, msg []byte) error {
	t.wmu.Lock()
	defer t.wmu.Unlock()
	if t.stdin == nil {
		return ErrStdinClosed
	}
	deadline, ok := ctx.Deadline()
	if !ok {
		timeout := t.cfg.WriteTimeout
		if timeout <= 0 {
			timeout = 10 * time.Second
		}
		deadline = time.Now().Add(timeout)
	}
	_ = t.stdin.SetWriteDeadline(deadline)
	t.wbuf = append(append(t.wbuf[:0], msg...), '\n')
	_, err := t.stdin.Write(t.wbuf)
	if cap(t.wbuf) > 64<<10 {
		t.wbuf = nil
	}
	return err
}

func (t *stdioTransport) start(ctx context.Context, call *Call) error {
	select {
	case <-t.readEnd:
		return t.gone(0, nil) // no wait: calls on a dying server fail at once
	default:
	}
	call.sent = time.Now() // before the call is routable: the reader may read it (a fence's)
	t.mu.Lock()
	t.calls[call.id] = call
	if call.malform == MalformJSON {
		t.unreadable = append(t.unreadable, call)
	}
	t.mu.Unlock()
	if err := t.write(ctx, call.body); err != nil {
		t.forget(call.id)
		if errors.Is(err, syscall.EPIPE) && t.readEnded(time.Second) {
			return t.gone(100*time.Millisecond, nil) // it died: say how
		}
		return fmt.Errorf("send %s: %w", call.method, err)
	}
	return nil
}

func (t *stdioTransport) wait(call *Call) { <-call.done }

func (t *stdioTransport) forget(id int64) {
	t.mu.Lock()
	delete(t.calls, id)
	t.mu.Unlock()
}

// linger keeps a finished call's id routable for the late window, so late
// answers and progress are still attributed to it.
func (t *stdioTransport) linger(call *Call) {
	stopped := time.Now()
	time.AfterFunc(call.lateWindow(), func() {
		t.mu.Lock()
		if t.calls[call.id] == call { // a retry under the same id may have taken it
			delete(t.calls, call.id)
		}
		t.unanswered.note(call, stopped)
		t.mu.Unlock()
		call.end(time.Now(), nil)
	})
}

// takeUnanswered reports whether id was a call forgotten without its
// final response, and when it was stopped, and forgets that too: one
// stale result per call.
func (t *stdioTransport) takeUnanswered(id int64) (time.Time, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.unanswered.take(id)
}

func (t *stdioTransport) cancel(call *Call, reason string, _ bool) error {
	t.linger(call)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := t.write(ctx, appendCancelled(nil, call.id, reason)); err != nil {
		return fmt.Errorf("write notifications/cancelled for %d: %w", call.id, err)
	}
	return nil
}

func (t *stdioTransport) abort(call *Call, mode AbortMode) error {
	t.linger(call)
	switch mode {
	case AbortClose:
		t.closeStdin()
		return nil
	case AbortKill:
		t.cut.Store(true)
		t.markRetired()
		return t.kill(syscall.SIGKILL)
	}
	return fmt.Errorf("abort mode %s does not apply to stdio", mode)
}

func (t *stdioTransport) closeStdin() {
	t.wmu.Lock()
	defer t.wmu.Unlock()
	if t.stdin != nil {
		t.stdin.Close()
		t.stdin = nil
		t.eofAt = time.Now()
	}
	t.cut.Store(true)
	t.markRetired()
}

// kill signals the server's whole process group.
func (t *stdioTransport) kill(sig syscall.Signal) error {
	if err := syscall.Kill(-t.cmd.Process.Pid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("signal %v to process group %d: %w", sig, t.cmd.Process.Pid, err)
	}
	return nil
}

// pause stops reading the shared stdout pipe: every call on the process
// stalls, as the server's writes block on a full pipe.
func (t *stdioTransport) pause(_ *Call, on bool) { t.gate.set(on) }

func (t *stdioTransport) waitGate() { t.gate.wait(t.exited) }

func (t *stdioTransport) notify(ctx context.Context, _ string, body []byte) error {
	return t.write(ctx, body)
}

// close closes stdin, waits for the exit, then sends SIGTERM and SIGKILL
// (see Stopped).
func (t *stdioTransport) close(ctx context.Context) error {
	t.closeStdin()
	timeout := t.cfg.ExitTimeout
	if timeout <= 0 {
		timeout = DefaultExitTimeout
	}
	for _, sig := range []syscall.Signal{0, syscall.SIGTERM, syscall.SIGKILL} {
		if sig != 0 {
			t.noteSignal(sig)
			_ = t.kill(sig)
		}
		timer := time.NewTimer(timeout)
		select {
		case <-t.exited:
			timer.Stop()
			select {
			case <-t.readEnd:
			case <-time.After(timeout):
				// A child the server left behind still holds its stdout.
				_ = t.kill(syscall.SIGKILL)
				t.stdout.Close()
				<-t.readEnd
			}
			return nil
		case <-ctx.Done():
			timer.Stop()
			t.noteSignal(syscall.SIGKILL)
			_ = t.kill(syscall.SIGKILL)
			<-t.exited
			return ctx.Err()
		case <-timer.C:
		}
	}
	<-t.exited
	return nil
}

// newStdoutReader sizes the pipe reader.
func newStdoutReader(f *os.File) *bufio.Reader { return bufio.NewReaderSize(f, 64<<10) }
