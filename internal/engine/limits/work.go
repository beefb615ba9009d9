package limits

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/engine"
	"github.com/mcpchaos/mcpchaos/report"
)

// workProbe is what the process probe read around the phases, in CPU
// seconds of the server's process trees: the doubling's steps that were
// not throttled (what an accepted call costs), the hold, and an idle span
// after it (what the server costs doing nothing).
type workProbe struct {
	probe string // the probe's name
	err   string // why there is no reading (empty: read)

	stepCPU   float64
	stepD     time.Duration
	stepCalls int

	holdCPU float64
	holdD   time.Duration
	idleCPU float64
	idleD   time.Duration
}

// costlyCPU is the least CPU a refused call must cost the server beyond
// an accepted call for refusal_work to be costly: 2 ms of work before
// refusing holds a core to 500 refusals a second, so refusing is itself a
// load. Taking the accepted call's cost out takes out what answering any
// call costs, and with it most of what a busy machine adds to every
// call's CPU.
const costlyCPU = 2 * time.Millisecond

// cpuFloor is the least CPU above idle over the hold that says anything:
// the process probe counts in clock ticks of 10 ms, and the hold's and
// the idle span's readings each differ by up to a tick. With fewer
// refusals than cpuFloor / costlyCPU the hold cannot tell.
const cpuFloor = 50 * time.Millisecond

// tooFew reports whether refused calls are too few for the process probe
// to tell costly ones: together they would cost less than cpuFloor.
func tooFew(refused int) bool { return time.Duration(refused)*costlyCPU < cpuFloor }

// measureCPU runs body between two readings of the process probe and
// returns the CPU the server used meanwhile and how long it took; ok is
// false when the run has no process probe or a reading failed (w.err
// says which).
func (s *Search) measureCPU(ctx context.Context, body func()) (cpu float64, d time.Duration, ok bool) {
	if s.f.work.err != "" {
		body()
		return 0, 0, false
	}
	read := func() (float64, bool) {
		v, name, err := s.c.ServerCPU(ctx)
		s.f.work.probe = name
		switch {
		case errors.Is(err, engine.ErrNoProcessProbe):
			s.f.work.err = "no process probe: the scenario's orphans.probes names no process and the target is not a stdio server mcpchaos starts"
		case err != nil && s.f.work.err == "":
			s.f.work.err = fmt.Sprintf("the process probe %s failed: %v", name, err)
		}
		return v, err == nil
	}
	c0, ok0 := read()
	t0 := time.Now()
	body()
	d = time.Since(t0)
	if !ok0 {
		return 0, 0, false
	}
	c1, ok1 := read()
	return c1 - c0, d, ok1
}

// idlePhase reads the process probe around an idle span as long as the
// hold (shorter when the budget is short, at least a second, leaving two
// for the phases after it), right after it: what the server costs doing nothing, taken out of the hold's CPU.
func (s *Search) idlePhase(ctx context.Context) error {
	w := &s.f.work
	if _, refused := count(s.f.hold); w.holdD == 0 || w.err != "" || tooFew(refused) {
		return nil // refusalWork says why there is no answer
	}
	d := min(w.holdD, s.left()-2*time.Second)
	if d < time.Second {
		w.err = "no budget left for the idle span that the hold's CPU is compared with (raise --budget)"
		return nil
	}
	s.c.Phase("idle")
	cpu, took, ok := s.measureCPU(ctx, func() { s.c.WaitUntil(ctx, time.Now().Add(d)) })
	if ok && ctx.Err() == nil {
		w.idleCPU, w.idleD = cpu, took
	}
	return nil
}

// refusalWork decides from the process probe's readings whether refused
// calls cost the server work: the hold's CPU above idle (the idle span's
// rate over the hold's length), less the accepted calls' share (each
// costing what a call of the unthrottled steps did above idle), shared
// among the hold's refused calls. A refusal is costly when it costs
// costlyCPU or more beyond an accepted call, and more than twice one:
// every call, refused or not, costs the server its parsing and answering,
// which an accepted call of a cheap tool is nearly all of. (A server's
// every call costs more on a busy machine: the built-in target built with
// -race read 2.67 CPU-ms a refusal and 1.10 a call on a loaded CI
// machine, 1.5 and 1.98 on an idle one.) It returns the verdict (none, costly or
// unknown), the CPU-ms per refused call (nil when unknown) and the
// evidence.
func refusalWork(w workProbe, accepted, refused int) (string, *float64, string) {
	switch {
	case w.err != "":
		return "unknown", nil, w.err
	case w.holdD == 0:
		return "unknown", nil, "the hold did not run"
	case refused == 0:
		return "unknown", nil, "no call of the hold was refused"
	case tooFew(refused):
		return "unknown", nil, fmt.Sprintf("too few refusals to tell: %d at %v each is within the probe's resolution (%v)", refused, costlyCPU, cpuFloor)
	case w.idleD == 0:
		return "unknown", nil, "the idle span did not run"
	}
	idleRate := max(0, w.idleCPU) / w.idleD.Seconds()
	extra := w.holdCPU - idleRate*w.holdD.Seconds()
	perOK := 0.0
	if w.stepCalls > 0 {
		perOK = max(0, w.stepCPU-idleRate*w.stepD.Seconds()) / float64(w.stepCalls)
	}
	perRefusal := max(0, extra-perOK*float64(accepted)) / float64(refused)
	ms := round(perRefusal*1000, 2)
	evidence := fmt.Sprintf("%s read %.0f CPU-ms over the %.1fs hold, %.0f over an idle %.1fs; less %d accepted calls at %.2f CPU-ms each, %s CPU-ms per refused call (%d)",
		w.probe, w.holdCPU*1000, w.holdD.Seconds(), w.idleCPU*1000, w.idleD.Seconds(), accepted, perOK*1000, num(ms), refused)
	switch {
	case perRefusal*float64(time.Second) < float64(costlyCPU): // then under it beyond a call too; said plainly
		return "none", &ms, evidence + fmt.Sprintf(": under %v", costlyCPU)
	case perRefusal < 2*perOK:
		return "none", &ms, evidence + ": under twice an accepted call's, what answering any call costs"
	case (perRefusal-perOK)*float64(time.Second) < float64(costlyCPU):
		return "none", &ms, evidence + fmt.Sprintf(": under %v more than an accepted call's, what answering any call costs", costlyCPU)
	}
	return "costly", &ms, evidence + fmt.Sprintf(": %v or more beyond an accepted call's and over twice it, the server works before it refuses", costlyCPU)
}

// workAnswer fills refusal_work and refusal_cpu_ms from the readings and
// adds the card's line.
func (s *Search) workAnswer(l *report.Limits) {
	if len(s.f.hold) == 0 {
		return
	}
	ok, refused := count(s.f.hold)
	verdict, ms, why := refusalWork(s.f.work, ok, refused)
	l.Overload.RefusalWork, l.Overload.RefusalCPUMs = verdict, ms
	l.Evidence = append(l.Evidence, fmt.Sprintf("refusal work %s: %s", verdict, why))
}
