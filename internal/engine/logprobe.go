package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/mcpchaos/mcpchaos/client"
	"github.com/mcpchaos/mcpchaos/internal/probes"
	"github.com/mcpchaos/mcpchaos/report"
)

// LogProbe reads the server's log for the line each call ends with:
// exactly one of File and Stderr.
type LogProbe struct {
	File   string // a log file, tailed
	Stderr bool   // the stderr of every stdio server process
	Done   string // regexp with a group (?P<id>...) or (?P<token>...)
}

// logPollMax is the longest period between two reads of a log file.
const logPollMax = 100 * time.Millisecond

// logProbes are the run's log probes. Every call that is cancelled or cut
// (stopWith) is handed to each; they keep its id until its completion line
// is read.
type logProbes struct {
	list []*logProbe
	stop chan struct{}
	done chan struct{}
}

type logProbe struct {
	name  string
	judge *probes.LogJudge
	file  *probes.LogFile // nil: stderr

	mu  sync.Mutex
	err string // the last error reading the file
}

// newLogProbes builds the plan's log probes. It runs before the servers
// start, so that a stderr probe taps every stdio process from its first
// line.
func (r *runner) newLogProbes() error {
	lps := &logProbes{stop: make(chan struct{}), done: make(chan struct{})}
	var taps []*probes.LogJudge
	for _, s := range r.plan.Orphans.Probes {
		if s.Log == nil {
			continue
		}
		done, err := probes.ParseDone(s.Log.Done)
		if err != nil {
			return fmt.Errorf("run: log probe: %w", err)
		}
		lp := &logProbe{name: s.Name, judge: probes.NewLogJudge(done, r.plan.Orphans.Grace)}
		switch {
		case s.Log.Stderr:
			if r.clients.cfg.Stdio == nil {
				return errors.New("run: a log probe on stderr needs a stdio target")
			}
			taps = append(taps, lp.judge)
		case s.Log.File != "":
			lp.file = probes.NewLogFile(s.Log.File, lp.judge.Line)
		default:
			return errors.New("run: a log probe needs a file or stderr")
		}
		lps.list = append(lps.list, lp)
	}
	if len(lps.list) == 0 {
		return nil
	}
	if len(taps) > 0 {
		r.clients.cfg.Stdio.StderrTap = func() io.Writer {
			ws := make([]io.Writer, len(taps))
			for i, j := range taps {
				ws[i] = j.Writer()
			}
			return io.MultiWriter(ws...)
		}
	}
	r.logs = lps
	return nil
}

// noteCancel hands a call that was just cancelled or cut to the log probes.
func (r *runner) noteCancel(call *client.Call, at time.Time) {
	if r.logs == nil {
		return
	}
	for _, lp := range r.logs.list {
		lp.judge.Cancelled(call.ID(), at)
	}
}

// start skips what the log files hold now and polls them until finish.
func (l *logProbes) start(every time.Duration) {
	if l == nil {
		return
	}
	for _, lp := range l.list {
		if lp.file != nil {
			lp.note(lp.file.Start())
		}
	}
	every = min(every, logPollMax)
	go func() {
		defer close(l.done)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-l.stop:
				return
			case now := <-t.C:
				l.poll(now)
			}
		}
	}()
}

func (l *logProbes) poll(now time.Time) {
	for _, lp := range l.list {
		if lp.file != nil {
			lp.note(lp.file.Poll(now))
		}
	}
}

func (lp *logProbe) note(err error) {
	if err == nil {
		return
	}
	lp.mu.Lock()
	lp.err = err.Error()
	lp.mu.Unlock()
}

// unseen returns the cancelled calls some log probe has not seen end.
func (l *logProbes) unseen() int {
	n := 0
	for _, lp := range l.list {
		n = max(n, lp.judge.Unseen())
	}
	return n
}

// abandon stops reading and closes the files, for a run that ends before
// its load (finish is not reached).
func (l *logProbes) abandon() {
	if l == nil {
		return
	}
	close(l.stop)
	<-l.done
	for _, lp := range l.list {
		if lp.file != nil {
			lp.file.Close()
		}
	}
}

// finish waits until every cancelled call has logged its end, or until
// deadline, then stops reading and puts what the probes found in out: each
// probe's orphans in ByProbe, the one with the most in Log.
func (l *logProbes) finish(ctx context.Context, deadline time.Time, out *report.Orphans) {
	if l == nil {
		return
	}
	for l.unseen() > 0 && time.Now().Before(deadline) && ctx.Err() == nil {
		sleep(ctx, logPollMax)
	}
	close(l.stop)
	<-l.done
	l.poll(time.Now())
	if out.ByProbe == nil {
		out.ByProbe = map[string]float64{}
	}
	for _, lp := range l.list {
		if lp.file != nil {
			lp.file.Close()
		}
		res := lp.judge.Result()
		out.ByProbe[lp.name] = float64(res.Orphaned)
		if out.Log == nil || res.Orphaned > out.Log.Orphaned {
			out.Log = &report.LogOrphans{Probe: lp.name, Lines: res.Lines, Matched: res.Matched, Orphaned: res.Orphaned,
				OrphanedIDs: res.OrphanedIDs, MaxAfterCancelMs: float64(res.MaxAfterCancel) / float64(time.Millisecond),
				Unseen: res.Unseen}
		}
		switch {
		case lp.err != "":
			out.ProbeErrors = append(out.ProbeErrors, lp.name+": "+lp.err)
		case res.Lines == 0:
			out.ProbeErrors = append(out.ProbeErrors, lp.name+": no line was read during the run")
		}
		if res.Untracked > 0 {
			out.ProbeErrors = append(out.ProbeErrors, fmt.Sprintf("%s: %d cancels beyond the first %d waiting were not judged",
				lp.name, res.Untracked, probes.MaxLogWaiting))
		}
	}
}
