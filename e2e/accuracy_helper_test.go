package e2e

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpchaos/mcpchaos/internal/targetserver"
	"github.com/mcpchaos/mcpchaos/internal/targetserver/knobs"
)

// The accuracy helper: a stateless Streamable HTTP server on the official
// Go SDK with one tool, work, that burns CPU for `seconds`.
// It stops when its context is cancelled, which without
// PropagateRequestCancellation (the SDK's default) never happens when the
// client closes the stream: the work runs on. It counts its own leftover
// work as ground truth: every slice of CPU a call burns after its HTTP
// request is gone is written to the file named by truthEnv as
// "UNIX_NANO CPU_NANOSECONDS" (the thread's own CPU time, read with
// getrusage(RUSAGE_THREAD) on a locked OS thread).
const (
	helperSDKWork = "sdk-work"
	truthEnv      = "MCPCHAOS_E2E_TRUTH"
)

type workArgs struct {
	Seconds float64 `json:"seconds"`
}

type reqCtxKey struct{}

// threadCPU returns the calling OS thread's CPU time.
func threadCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(1 /* RUSAGE_THREAD */, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func serveSDKWork(propagate bool) int {
	truth, err := os.OpenFile(os.Getenv(truthEnv), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	var mu sync.Mutex
	note := func(cpu time.Duration) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(truth, "%d %d\n", time.Now().UnixNano(), cpu.Nanoseconds())
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "e2e-sdk-work", Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "work", Description: "burns CPU for seconds, stopping when cancelled"},
		func(ctx context.Context, _ *mcp.CallToolRequest, in workArgs) (*mcp.CallToolResult, any, error) {
			gone := ctx.Done()
			if rc, ok := ctx.Value(reqCtxKey{}).(context.Context); ok {
				gone = rc.Done()
			}
			isGone := func() bool {
				select {
				case <-gone:
					return true
				default:
					return false
				}
			}
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			end := time.Now().Add(time.Duration(in.Seconds * float64(time.Second)))
			var x uint64
			for time.Now().Before(end) {
				if ctx.Err() != nil {
					return nil, nil, fmt.Errorf("stopped: %w", ctx.Err())
				}
				before := threadCPU()
				x += targetserver.Spin(2 * time.Millisecond)
				if isGone() {
					note(threadCPU() - before)
				}
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("worked %v (%d)", in.Seconds, x&1)}}}, nil, nil
		})
	inner := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv },
		&mcp.StreamableHTTPOptions{Stateless: true, PropagateRequestCancellation: propagate})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		inner.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), reqCtxKey{}, r.Context())))
	})
	return serveHelper(h)
}

// workServer starts the accuracy helper; truth reads its ground truth:
// the leftover CPU-seconds it burnt between from and to.
func workServer(t *testing.T, propagate bool) (url string, pid int, truth func(from, to time.Time) float64) {
	t.Helper()
	file := t.TempDir() + "/truth"
	url, pid = startHelper(t, "SDK work helper", helperEnv+"="+helperSDKWork, propagateEnv+"="+strconv.FormatBool(propagate), truthEnv+"="+file)
	truth = func(from, to time.Time) float64 {
		total := time.Duration(0)
		for _, p := range readPairs(t, file) {
			// A slice of about 2 ms, noted at its end: count it by its middle.
			if mid := p.at.Add(-p.d / 2); !mid.Before(from) && mid.Before(to) {
				total += p.d
			}
		}
		return total.Seconds()
	}
	return url, pid, truth
}

// The built-in target as a black box: helperBuiltin serves it over HTTP in
// a process of its own, with the knobs of knobsEnv ("name=value,..."), so
// a scenario sees it only as an http target with a pid (no metrics probe,
// no tool probe): the case of a server that exposes nothing.
const (
	helperBuiltin = "builtin-http"
	knobsEnv      = "MCPCHAOS_E2E_KNOBS"
)

// knobConfig is the target's configuration from knobsEnv; an error says
// which knob is wrong.
func knobConfig() (targetserver.Config, error) {
	var cfg targetserver.Config
	for kv := range strings.SplitSeq(os.Getenv(knobsEnv), ",") {
		name, value, ok := strings.Cut(kv, "=")
		if !ok {
			continue
		}
		k, found := knobs.Lookup(name)
		if !found {
			return cfg, fmt.Errorf("unknown knob %q", name)
		}
		if err := k.Set(&cfg, value); err != nil {
			return cfg, err
		}
	}
	return cfg, nil
}

func serveBuiltin() int {
	cfg, err := knobConfig()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	r, err := targetserver.StartHTTP(context.Background(), cfg, "")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if file := os.Getenv(truthEnv); file != "" {
		if err := sampleLeftover(r.Server, file); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	fmt.Println(r.URL)
	if err := r.Wait(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// sampleLeftover writes the target's own leftover CPU counter (the one
// /metrics exports as mcpchaos_target_leftover_cpu_seconds_total) to file
// every leftoverSample, as "UNIX_NANO CPU_NANOSECONDS" lines, so a test can
// tell how much of it fell inside each quiet window. Reading the counter
// in-process costs the server next to nothing; scraping /metrics that
// often would add CPU of its own to what the windows measure.
func sampleLeftover(s *targetserver.Server, file string) error {
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	go func() {
		t := time.NewTicker(leftoverSample)
		defer t.Stop()
		for now := range t.C {
			fmt.Fprintf(f, "%d %d\n", now.UnixNano(), s.Stats().LeftoverCPU.Nanoseconds())
		}
	}()
	return nil
}

// leftoverSample is 50 ms: the tests read the counter's gain over a run or
// a window, which the interpolation between samples gets right. At 10 ms
// the sampling itself cost the server 9–31 ms of CPU a second, under the
// three-tick floor of a quiet window only just, and one run of the
// stopping target in five read 40 ms of it as leftover work (a false
// violation of the test's own making).
const leftoverSample = 50 * time.Millisecond

// builtinServer starts the built-in target in its own process; file is
// where it samples its leftover CPU counter (see counterTruth).
func builtinServer(t *testing.T, knobList string) (url string, pid int, file string) {
	t.Helper()
	file = t.TempDir() + "/truth"
	url, pid = startHelper(t, "built-in target helper", helperEnv+"="+helperBuiltin, knobsEnv+"="+knobList, truthEnv+"="+file)
	return url, pid, file
}

// counterTruth reads the ground truth sampled to file: the leftover
// CPU-seconds the counter gained between from and to (interpolated
// between the samples around each end).
func counterTruth(t *testing.T, file string) func(from, to time.Time) float64 {
	return func(from, to time.Time) float64 {
		series := readPairs(t, file)
		return (counterAt(series, to) - counterAt(series, from)).Seconds()
	}
}

// pair is one line of a ground-truth file: a time and a duration.
type pair struct {
	at time.Time
	d  time.Duration
}

// readPairs reads the "UNIX_NANO NANOSECONDS" lines of a ground-truth
// file, skipping a line torn by a write in progress.
func readPairs(t *testing.T, file string) []pair {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("ground truth: %v", err)
	}
	var out []pair
	for l := range strings.Lines(string(b)) {
		f := strings.Fields(l)
		if len(f) != 2 || !strings.HasSuffix(l, "\n") {
			continue
		}
		at, err1 := strconv.ParseInt(f[0], 10, 64)
		d, err2 := strconv.ParseInt(f[1], 10, 64)
		if err1 == nil && err2 == nil {
			out = append(out, pair{time.Unix(0, at), time.Duration(d)})
		}
	}
	return out
}

// counterAt is a sampled counter's value at t, interpolated linearly
// between the samples around it.
func counterAt(series []pair, t time.Time) time.Duration {
	i := sort.Search(len(series), func(i int) bool { return series[i].at.After(t) })
	switch {
	case i == 0:
		return 0
	case i == len(series):
		return series[i-1].d
	}
	a, b := series[i-1], series[i]
	frac := float64(t.Sub(a.at)) / float64(b.at.Sub(a.at))
	return a.d + time.Duration(frac*float64(b.d-a.d))
}
