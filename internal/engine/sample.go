package engine

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/probes"
)

// noteGone notes a process probe's reading that did not find the process
// the scenario named (the stdio servers come and go: not an error).
func (pr *probeRun) noteGone(s probes.ProcessSample) {
	if pr.pid != 0 && s.Gone > 0 {
		pr.noteError(fmt.Sprintf("%s: process %d is not running", pr.procName, pr.pid))
	}
}

// sampleAll reads every probe once, in parallel, bounded by timeout and
// ctx (see readContext).
func (pr *probeRun) sampleAll(ctx context.Context, timeout time.Duration) (map[string]float64, probes.ProcessSample) {
	return pr.sampleSome(ctx, timeout, true)
}

// finalRead bounds a reading of the probes taken after an interrupt: the
// short last look.
const finalRead = time.Second

// readContext bounds one reading of the probes by timeout and by ctx, the
// interrupt: a reading in progress ends with ctx, and one that starts
// after ctx ended gets at most finalRead.
func readContext(ctx context.Context, timeout time.Duration) (context.Context, context.CancelFunc) {
	if ctx.Err() != nil {
		return context.WithTimeout(context.Background(), min(timeout, finalRead))
	}
	return context.WithTimeout(ctx, timeout)
}

// sampleSome reads every count probe, and the process probe if withProc.
func (pr *probeRun) sampleSome(ctx context.Context, timeout time.Duration, withProc bool) (map[string]float64, probes.ProcessSample) {
	ctx, cancel := readContext(ctx, timeout)
	defer cancel()
	out := make(map[string]float64, len(pr.counts)+1)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, p := range pr.counts {
		wg.Go(func() {
			v, err := p.Sample(ctx)
			mu.Lock()
			defer mu.Unlock()
			if errors.Is(err, probes.ErrAbsent) {
				v, err = 0, nil // a series exported only once used
			}
			if err != nil {
				pr.noteError(p.Name() + ": " + err.Error())
				v = math.NaN()
			}
			out[p.Name()] = v
		})
	}
	var ps probes.ProcessSample
	if pr.proc != nil && withProc {
		wg.Go(func() {
			s, err := pr.proc.SampleTree(ctx)
			pr.noteGone(s)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				pr.noteError(pr.procName + ": " + err.Error())
				out[pr.procName] = math.NaN()
				return
			}
			ps = s
			out[pr.procName] = s.CPUSeconds
		})
	}
	wg.Wait()
	return out, ps
}

func (pr *probeRun) noteError(msg string) {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	if len(pr.errors) < 20 {
		for _, e := range pr.errors {
			if e == msg {
				return
			}
		}
		pr.errors = append(pr.errors, msg)
	}
}

// sampleProc reads the process probe alone.
func (pr *probeRun) sampleProc(ctx context.Context, timeout time.Duration) (probes.ProcessSample, error) {
	ctx, cancel := readContext(ctx, timeout)
	defer cancel()
	ps, err := pr.proc.SampleTree(ctx)
	pr.noteGone(ps)
	if err != nil {
		pr.noteError("process: " + err.Error())
	}
	return ps, err
}

// sampleCounts reads the count probes (not the process) once.
func (pr *probeRun) sampleCounts(ctx context.Context, timeout time.Duration) (map[string]float64, error) {
	vals, _ := pr.sampleSome(ctx, timeout, false)
	return vals, nil
}
