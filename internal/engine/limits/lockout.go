package limits

import (
	"context"
	"fmt"
	"time"

	"github.com/mcpchaos/mcpchaos/report"
)

// lockProbe is what the lockout phase found: a patient client against an
// eager one, each after a refusal of its own.
type lockProbe struct {
	done      bool
	patient   obs  // the refusal the patient client waited on
	patientOK bool // its call, sent the hint after, was accepted
	eager     recovery
}

// lockoutPhase asks whether a client that ignores the hints is kept out
// longer than one that waits as told. Twice, calls go one at a time
// (each after the previous answer) until one is refused; the first
// time, the client waits the refusal's hint and sends one call; the
// second time, it sends one every Probe until one is accepted.
func (s *Search) lockoutPhase(ctx context.Context) error {
	if s.f.holdRate == 0 {
		return nil
	}
	if _, isCap := s.isCap(); isCap {
		return nil // calls one at a time never meet a cap
	}
	spec := -1
	if ref, ok := lastRefusal(s.f.hold); ok {
		spec = s.spec(ref.tool)
	}
	if s.left() < 8*time.Second {
		s.f.notes = append(s.f.notes, "no budget left to ask whether a client that ignores the hints is locked out")
		return nil
	}
	ref, found, err := s.drain(ctx, spec)
	if err != nil || !found || !ref.hinted {
		return err
	}
	limit := min(2*ref.hint+8*time.Second, 15*time.Second)
	if s.left() < 2*ref.hint+limit/2 {
		s.f.notes = append(s.f.notes, "no budget left to ask whether a client that ignores the hints is locked out")
		return nil
	}
	s.f.lock.done, s.f.lock.patient = true, ref
	got, _, err := s.phase(ctx, "lockout", func(fire firer) {
		if s.c.WaitUntil(ctx, s.start.Add(ref.answered+ref.hint)) {
			<-fire(time.Now(), spec)
		}
	})
	if err != nil {
		return err
	}
	_, s.f.lock.patientOK = firstOK(got)
	eager, found, err := s.drain(ctx, spec)
	if err != nil || !found {
		return err
	}
	return s.probeFor(ctx, "lockout", eager, eager.answered, min(limit, s.left()-time.Second), &s.f.lock.eager)
}

// drain sends calls of spec one at a time, each when the previous one was
// answered, until one is refused (at most 500 calls, for 3 s), and
// returns that refusal.
func (s *Search) drain(ctx context.Context, spec int) (ref obs, found bool, err error) {
	end := time.Now().Add(3 * time.Second)
	_, _, err = s.phase(ctx, "lockout", func(fire firer) {
		for i := 0; i < 500 && time.Now().Before(end) && ctx.Err() == nil; i++ {
			o, ok := <-fire(time.Now(), spec)
			if ok && o.throttled {
				ref, found = o, true
				return
			}
		}
	})
	return ref, found, err
}

// lockout: whether a client that ignores the hints waits longer than one
// that waits as told.
func (s *Search) lockout(l *report.Limits) {
	k := s.f.lock
	l.Lockout.Verdict = "unknown"
	if !k.done {
		return
	}
	hint := k.patient.hint
	l.Lockout.HintS = ptr(round(hint.Seconds(), 3))
	if !k.patientOK {
		l.Evidence = append(l.Evidence, fmt.Sprintf("lockout unknown: a call sent %gs after a refusal, as its hint said, was refused too (the hint is too short to tell a lock-out)", hint.Seconds()))
		return
	}
	e := k.eager
	waited := e.tried
	if e.found {
		waited = e.after
		l.Lockout.EagerAfterS = ptr(round(e.after.Seconds(), 2))
	}
	eagerHint := e.ref.hint
	if !e.ref.hinted {
		eagerHint = hint
	}
	extra := waited - eagerHint
	l.Lockout.Verdict = "none"
	if !e.found || extra > time.Second+s.slack() {
		l.Lockout.Verdict = "locked_out"
		l.Lockout.ExtraS = ptr(round(max(0, extra).Seconds(), 2))
	}
	eagerText := fmt.Sprintf("the first call accepted came %.2fs after its refusal (hint %gs)", e.after.Seconds(), eagerHint.Seconds())
	if !e.found {
		eagerText = fmt.Sprintf("none was accepted for %.1fs after its refusal (hint %gs)", e.tried.Seconds(), eagerHint.Seconds())
	}
	line := fmt.Sprintf("lockout %s: a call sent %gs after a refusal, as its hint said, was accepted; calling every %v instead, %s",
		l.Lockout.Verdict, hint.Seconds(), s.o.Probe, eagerText)
	if l.Lockout.Verdict == "locked_out" {
		line += "; the hold called on through refusals too, so its rate is what a client that ignores the hints gets"
	}
	l.Evidence = append(l.Evidence, line)
}
