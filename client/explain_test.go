package client

import (
	"github.com/mcpchaos/mcpchaos/internal/testutil"

	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// Failures during Dial explain themselves: a stdio server's exit status
// and the end of its stderr, how long a silent server was waited for (or
// that the wait was interrupted), an HTTP status and the URL it came from.

func TestDialExplainsStdioExit(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, script string
		want         []string
	}{
		{"exits at once", `echo "starting" >&2; echo "FATAL: config file missing" >&2; exit 1`,
			[]string{"server exited: exit status 1", "the last lines of its stderr:\n    starting\n    FATAL: config file missing"}},
		{"exits after reading the probe", `read line; echo "FATAL: config file missing" >&2; exit 3`,
			[]string{"server/discover: server exited: exit status 3", "    FATAL: config file missing"}},
		{"exits silently", `exit 0`, []string{"server exited: exit status 0", "it wrote nothing on stderr"}},
		{"killed", `echo "out of memory" >&2; kill -9 $$`, []string{"server exited: signal: killed", "    out of memory"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := Dial(ctxT(t), Config{Stdio: &StdioConfig{Command: []string{"sh", "-c", tc.script}}})
			if err == nil {
				t.Fatal("Dial succeeded")
			}
			for _, want := range tc.want {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("Dial error:\n%v\nwant it to hold %q", err, want)
				}
			}
			if s := err.Error(); strings.Contains(s, "stdout is closed") || strings.Contains(s, "initialize") {
				t.Errorf("Dial error blames the pipe or tries initialize: %v", err)
			}
		})
	}
}

func TestDialExplainsSilence(t *testing.T) {
	t.Parallel()
	const probe = 300 * time.Millisecond
	silentStdio := &StdioConfig{Command: []string{"sh", "-c", `echo "waiting for a license server" >&2; cat >/dev/null`}}
	silentHTTP := startFake(t, func(w http.ResponseWriter, req fakeReq) bool {
		select {
		case <-req.Req.Context().Done():
		case <-time.After(testutil.WaitLong):
		}
		return true
	})
	// Headers at once, then nothing: the answer never comes.
	headersOnly := startFake(t, func(w http.ResponseWriter, req fakeReq) bool {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		w.(http.Flusher).Flush()
		select {
		case <-req.Req.Context().Done():
		case <-time.After(testutil.WaitLong):
		}
		return true
	})
	for _, tc := range []struct {
		name      string
		cfg       Config
		interrupt bool
		want      []string
		is        error
	}{
		// 3 s a step (ProbeTimeout below): the message quotes the server's
		// stderr, and a starved machine may not run sh's echo within 600 ms.
		{"stdio", Config{Stdio: silentStdio, ProbeTimeout: 3 * time.Second},
			false, []string{"initialize: no answer: timed out after 3s (server/discover got no answer either)", "    waiting for a license server"}, context.DeadlineExceeded},
		{"stdio interrupted", Config{Stdio: silentStdio},
			true, []string{"server/discover: no answer: interrupted after"}, context.Canceled},
		{"http", Config{HTTP: &HTTPConfig{URL: silentHTTP.URL + "/mcp"}},
			false, []string{"server/discover: no answer: timed out after 300ms"}, context.DeadlineExceeded},
		{"http headers only", Config{HTTP: &HTTPConfig{URL: headersOnly.URL + "/mcp"}},
			false, []string{"server/discover: no answer: timed out after 300ms"}, context.DeadlineExceeded},
		{"http interrupted", Config{HTTP: &HTTPConfig{URL: silentHTTP.URL + "/mcp"}},
			true, []string{"server/discover: no answer: interrupted after"}, context.Canceled},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithCancel(ctxT(t))
			defer cancel()
			cfg := tc.cfg
			if cfg.ProbeTimeout == 0 {
				cfg.ProbeTimeout = probe
			}
			if tc.interrupt {
				cfg.ProbeTimeout = testutil.WaitLong
				time.AfterFunc(probe, cancel) // Ctrl-C during connect
			}
			_, err := Dial(ctx, cfg)
			if err == nil {
				t.Fatal("Dial succeeded")
			}
			for _, want := range tc.want {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("Dial error:\n%v\nwant it to hold %q", err, want)
				}
			}
			if !errors.Is(err, tc.is) || strings.Contains(err.Error(), "stream ended") {
				t.Errorf("Dial error %v: want one that is %v, not a stream that ended", err, tc.is)
			}
		})
	}
}

func TestDialExplainsHTTPStatus(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		status int
		want   string
	}{
		{404, "initialize: HTTP status 404 Not Found from http://%s/wrong (is the path right?)"},
		{401, "initialize: HTTP status 401 Unauthorized from http://%s/wrong (does it need credentials"},
		{502, "initialize: HTTP status 502 Bad Gateway from http://%s/wrong"},
	} {
		f := startFake(t, func(w http.ResponseWriter, req fakeReq) bool {
			http.Error(w, "no", tc.status)
			return true
		})
		// Credentials and the query stay out of the message.
		_, err := Dial(ctxT(t), Config{HTTP: &HTTPConfig{URL: "http://user:secret@" + f.Listener.Addr().String() + "/wrong?access_token=secret"}})
		want := strings.Replace(tc.want, "%s", f.Listener.Addr().String(), 1)
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "secret") {
			t.Errorf("status %d: Dial error %v, want one holding %q", tc.status, err, want)
		}
	}
}

// TestGivenTime: a control request that timed out names the bound it was
// given as configured, even when it started a while after the bound was
// set (on a busy machine, "timed out after 298ms" for a 300ms bound);
// under a parent's earlier deadline it names the time it really had.
func TestGivenTime(t *testing.T) {
	for _, tc := range []struct {
		name   string
		parent time.Duration // 0: none
		bound  bool          // the parent is made by WithBound (a command's overall bound)
		want   time.Duration
	}{
		{"the configured bound", 0, false, 300 * time.Millisecond},
		{"a parent's earlier deadline", 100 * time.Millisecond, false, 98 * time.Millisecond},
		{"a parent bound's earlier deadline", 100 * time.Millisecond, true, 100 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				parent := context.Background()
				if tc.parent > 0 {
					timeout := context.WithTimeout
					if tc.bound {
						timeout = WithBound
					}
					var cancel context.CancelFunc
					parent, cancel = timeout(parent, tc.parent)
					defer cancel()
				}
				ctx, cancel := WithBound(parent, 300*time.Millisecond)
				defer cancel()
				time.Sleep(2 * time.Millisecond) // the request starts late (a fake clock)
				start := time.Now()
				<-ctx.Done()
				deadline, _ := ctx.Deadline()
				if got := givenTime(ctx, start, deadline); got != tc.want {
					t.Errorf("given %v, want %v", got, tc.want)
				}
			})
		})
	}
}
