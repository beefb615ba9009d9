package engine

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/results"
)

func TestClientLimit(t *testing.T) {
	dial := func(errno syscall.Errno) error {
		op := &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("socket", errno)}
		return fmt.Errorf("connect to http://127.0.0.1:1/mcp: %w", &url.Error{Op: "Post", URL: "http://127.0.0.1:1/mcp", Err: op})
	}
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"nil", nil, ""},
		{"EMFILE on socket", dial(syscall.EMFILE), results.LimitFDs},
		{"ENFILE on socket", dial(syscall.ENFILE), results.LimitFDs},
		{"EADDRNOTAVAIL on connect", dial(syscall.EADDRNOTAVAIL), results.LimitPorts},
		{"ENOMEM", dial(syscall.ENOMEM), results.LimitMemory},
		{"ENOBUFS", dial(syscall.ENOBUFS), results.LimitMemory},
		{"refused is the server's", dial(syscall.ECONNREFUSED), ""},
		{"reset is the server's", dial(syscall.ECONNRESET), ""},
		{"the text alone is not enough", errors.New("socket: too many open files"), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := clientLimit(tc.err); got != tc.want {
				t.Errorf("clientLimit(%v) = %q, want %q", tc.err, got, tc.want)
			}
		})
	}
}

func TestClassifyClientLimit(t *testing.T) {
	for _, tc := range []struct {
		name        string
		final       finalKind
		err         error
		wantOutcome string
		wantLimit   string
	}{
		{"dial out of fds", finalNone, &net.OpError{Op: "dial", Err: os.NewSyscallError("socket", syscall.EMFILE)}, results.ClientLimit, results.LimitFDs},
		{"dial refused", finalNone, &net.OpError{Op: "dial", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}, results.TransportError, ""},
		{"an answer came first", finalResult, &net.OpError{Op: "read", Err: os.NewSyscallError("read", syscall.ENOBUFS)}, results.OK, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cs := &callState{r: &runner{}, final: tc.final, endErr: tc.err}
			v := cs.classify()
			if v.outcome != tc.wantOutcome || v.limit != tc.wantLimit {
				t.Fatalf("classify = %q (limit %q), want %q (limit %q)", v.outcome, v.limit, tc.wantOutcome, tc.wantLimit)
			}
			cs.apply(v)
			if cs.rec.Limit != tc.wantLimit {
				t.Errorf("record's limit %q, want %q", cs.rec.Limit, tc.wantLimit)
			}
		})
	}
}

func TestPacerLag(t *testing.T) {
	var p pacerLag
	// Ticks every 100 ms; the last two are late: 200 ms of the schedule.
	for i, lag := range []time.Duration{0, time.Millisecond, pacerLateBound, pacerLateBound + 1, 2 * time.Second} {
		p.tick(time.Duration(i)*100*time.Millisecond, lag)
	}
	got := p.result()
	if got.Ticks != 5 || got.Late != 2 || got.MaxLagMs != 2000 || got.BoundMs != 1000 || got.LateSpanMs != 200 || got.EndLagMs != 2000 {
		t.Errorf("pacer lag %+v, want 5 ticks, 2 late, max 2000 ms, bound 1000 ms, late span 200 ms, 2000 ms behind at the end", got)
	}
}
