package engine

import (
	"strconv"
	"sync"
	"time"

	"github.com/mcpchaos/mcpchaos/client"
	"github.com/mcpchaos/mcpchaos/internal/faultkinds"
	"github.com/mcpchaos/mcpchaos/internal/faults"
	"github.com/mcpchaos/mcpchaos/results"
)

// A call's faults: drawn before the send, armed once it is sent, fired at
// their moment, and described in the record when the call ends. What a
// fault does is its own business (package faults); here is only when it
// may act and what the record says about it.

// armed is one Actor drawn for one call, waiting for its moment.
type armed struct {
	kind   string
	act    faults.Actor
	when   faults.When
	timer  timerHandle
	done   bool // its moment came (it may still have found the call over)
	fired  bool // it acted
	paused bool // it stopped reading the call's stream
	gone   bool // its moment came when the call's stdio server was gone
	// pending: its moment came and fire is on its way (counted acting).
	pending bool
	rec     int // its entry in the record's faults, once fired
	// after_progress faults: due is the fallback moment (progressfallback.go),
	// quiet that it moves with each progress, fallback that it came first;
	// held that its progress came in a burst, at heldAt (progressburst.go).
	due                   time.Time
	quiet, fallback, held bool
	heldAt                time.Time
}

// drawFaults makes every fault's random choices for the call, in scenario
// order, applies the ones that rewrite the request and arms the others.
func (cs *callState) drawFaults(req *client.CallRequest) {
	for _, f := range cs.r.plan.Faults {
		when, ok := f.Draw(cs.rng, cs.info)
		if !ok {
			continue
		}
		if rw, ok := f.(faults.Rewriter); ok {
			cs.rewriter = rw
			cs.rewrites = append(cs.rewrites, len(cs.rec.Faults))
			cs.rec.Faults = append(cs.rec.Faults, results.Fault{Kind: f.Kind(), Mode: rw.Rewrite(req)})
		}
		if rb, ok := f.(faults.RetryBreaker); ok {
			cs.badRetry = &badRetry{fault: rb, rec: len(cs.rec.Faults), round: -1}
			cs.rec.Faults = append(cs.rec.Faults, results.Fault{Kind: f.Kind(), Skipped: true, Detail: "no input_required to answer"})
		}
		if ps, ok := f.(faults.PollSpeeder); ok {
			cs.task.pollFactor, cs.task.fastPoll = ps.PollFactor(), len(cs.rec.Faults)
			cs.rec.Faults = append(cs.rec.Faults, results.Fault{Kind: f.Kind(), Skipped: true, Detail: "no task to poll"})
		}
		if re, ok := f.(faults.Reissuer); ok {
			cs.reissues = re.Reissues()
		}
		if act, ok := f.(faults.Actor); ok {
			cs.armed = append(cs.armed, &armed{kind: f.Kind(), act: act, when: when})
		}
	}
}

// armFaults starts the timers of time-triggered faults (cs.mu held).
func (cs *callState) armFaults() {
	for _, a := range cs.armed {
		if a.when.Progress > 0 {
			cs.armFallback(a)
			continue
		}
		if a.when.AtResponse {
			continue
		}
		at := cs.sent.Add(a.when.After)
		a.timer = cs.r.afterFunc(time.Until(at), func() { cs.fire(a, at) })
	}
}

// onProgressFaults fires faults waiting for the n-th progress (cs.mu held).
// On HTTP the call's stream has a reader of its own, so the fault acts on
// that reader before the next message is read (OnEvent runs cs.due once
// cs.mu is released): "after the N-th progress" is exact however busy the
// machine. On stdio the reader is shared by every call of the process and
// must not wait for one call's fault, so the fault acts on a goroutine.
func (cs *callState) onProgressFaults(n int, at time.Time, burst bool) {
	burst = burst && cs.info.Transport == "http"
	if !burst {
		cs.releaseHeld()
	}
	for _, a := range cs.armed {
		if a.when.Progress > n && a.quiet && !a.done {
			cs.moveFallback(a, at)
		}
		if a.when.Progress == n && !a.done && burst {
			a.held, a.heldAt = true, at
			continue
		}
		if a.when.Progress == n && !a.done {
			a.done = true
			if a.timer != nil {
				a.timer.Stop()
			}
			cs.fireSoon(a)
			if cs.info.Transport == "http" {
				cs.due = append(cs.due, dueFault{a, at})
			} else {
				go cs.fire(a, at)
			}
		}
	}
}

// dueFault is a fault whose moment came while cs.mu was held.
type dueFault struct {
	a  *armed
	at time.Time
}

// onResponseFaults fires faults waiting for the final response (cs.mu held).
func (cs *callState) onResponseFaults(at time.Time) {
	for _, a := range cs.armed {
		if a.when.AtResponse && !a.done {
			a.done = true
			cs.fireSoon(a)
			go cs.fire(a, at)
		}
	}
}

// fire does a fault to the call and records it, with its timing error.
func (cs *callState) fire(a *armed, scheduled time.Time) {
	cs.mu.Lock()
	over := cs.final != finalNone || cs.stopOutcome != "" || !cs.endAt.IsZero()
	// A fault that acts even after the response (a cancel race) acts when
	// the response won, but not on a call that ended without one (its
	// transport failed).
	if a.when.EvenAfterResponse && cs.stopOutcome == "" && cs.final != finalNone {
		over = false
	}
	// A call whose stdio server was killed or had its stdin closed (by a
	// disconnect fault) cannot be reached any more and ends when the
	// process does: its later faults are skipped, as for an ended call.
	if !over && !cs.recorded && cs.serverRetired() {
		over, a.gone = true, true
	}
	over = over || cs.recorded
	a.done = true
	switch {
	case over && a.pending:
		cs.endActing()
	case !over && !a.pending:
		cs.acting++ // the record waits for what the fault did
	}
	a.pending = false
	cs.mu.Unlock()
	if over {
		return
	}
	actual := time.Now()
	detail, err := a.act.Act(faultCall{cs, a}, cs.info)
	if err != nil {
		detail += ": " + err.Error()
	}
	if a.fallback {
		detail = fallbackDetail(a, detail)
	}
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if err == nil && faults.CutsCalls(a.kind) {
		// Noted before the signal, so that a window that begins at this
		// cut finds it (contention.go). A task's tasks/cancel is not a
		// cut, nor, before 2026-07-28, a disconnect (the spec's "not a
		// cancel"): nothing to project.
		if cs.task.id == "" && (a.kind != faultkinds.Disconnect || cs.info.Era.Modern()) {
			cs.r.cutTimes.note(cs.cutAt(time.Now()))
		}
		cs.r.cutSignal()
	}
	if a.kind == faultkinds.Cancel && err == nil && cs.task.id != "" {
		detail = "tasks/cancel sent" // a task's stop (taskcancel.go), whatever the transport
	}
	a.fired, a.rec = true, len(cs.rec.Faults)
	cs.rec.Faults = append(cs.rec.Faults, results.Fault{Kind: a.kind, ScheduledUs: cs.us(scheduled),
		ActualUs: cs.us(actual), ErrorUs: actual.Sub(scheduled).Microseconds(), Detail: detail})
	cs.endActing()
}

// fireSoon marks a fault whose moment came as acting before fire runs on
// another goroutine (or once cs.mu is released), so that a record taken
// meanwhile waits for it: a goroutine a loaded machine runs late must not
// find its call recorded (cs.mu held).
func (cs *callState) fireSoon(a *armed) {
	a.pending = true
	cs.acting++
}

// endActing ends a fault's (or a stop's) turn as acting and wakes a
// waiting record (cs.mu held).
func (cs *callState) endActing() {
	cs.acting--
	cs.actCond().Broadcast()
}

// actCond is the condition record waits on for faults and stops still
// acting (cs.mu held). An Act is bounded (a cancel's or a kill's write has
// a time limit of its own, a 2025 cancel's POST 5 s), so the wait is too.
func (cs *callState) actCond() *sync.Cond {
	if cs.actDone == nil {
		cs.actDone = sync.NewCond(&cs.mu)
	}
	return cs.actDone
}

// waitActing waits until no fault or stop of the call is acting (cs.mu
// held): a fault whose Act was still running when the late window ended (a
// cancel written to a starved server's pipe, a goroutine the machine ran
// late) acted, and must be in the record as injected, not as skipped; a
// stop's cancel that fails must leave its error in the record.
func (cs *callState) waitActing() {
	for cs.acting > 0 {
		cs.actCond().Wait()
	}
}

// skippedFaults records the faults whose moment never came (cs.mu held).
func (cs *callState) skippedFaults() {
	for _, a := range cs.armed {
		if a.timer != nil {
			a.timer.Stop()
		}
		if !a.fired {
			var at int64
			if a.when.Progress == 0 && !a.when.AtResponse && !cs.sent.IsZero() {
				at = cs.us(cs.sent.Add(a.when.After))
			}
			detail := "the call ended first"
			switch {
			case a.held:
				detail = heldDetail(a)
			case a.gone:
				detail = "the call's server process was gone first"
			}
			cs.rec.Faults = append(cs.rec.Faults, results.Fault{Kind: a.kind, ScheduledUs: at, Skipped: true, Detail: detail})
		}
	}
}

// describeFaults adds what only the end of the call tells: whether a
// broken request got the answer a correct server gives, and how the server
// coped with a stalled reader (cs.mu held).
func (cs *callState) describeFaults() {
	for _, i := range cs.rewrites {
		f := &cs.rec.Faults[i]
		f.ScheduledUs, f.ActualUs = cs.us(cs.sent), cs.us(cs.sent)
		answer := "HTTP " + strconv.Itoa(cs.status)
		if cs.status == 0 {
			answer = "no HTTP status"
		}
		var code int64
		if cs.hasCode {
			code = cs.code
			answer += ", error " + strconv.FormatInt(cs.code, 10)
		} else if cs.final == finalResult {
			answer += ", a result"
		}
		a := faults.Answer{Era: cs.info.Era, Status: cs.status, Code: code, Answered: cs.final != finalNone || cs.status != 0}
		// An answer that came after we cut the call answers the cut (a
		// server may end a cancelled request with an error of its own),
		// not the broken request.
		answeredFirst := a.Answered && !cs.responseAt.IsZero() && (cs.cancelAt.IsZero() || cs.responseAt.Before(cs.cancelAt))
		switch {
		case cs.cutByUs() && !answeredFirst:
			// We cut the call before any answer: nothing to judge.
			f.Detail = "not judged: the call was cut before an answer (" + string(cs.rec.Outcome) + ")"
		case cs.rewriter.Expected(a):
			f.Detail = "expected answer: " + answer
		default:
			f.Detail = "unexpected answer: " + answer
		}
	}
	for _, a := range cs.armed {
		if a.fired && a.paused {
			cs.rec.Faults[a.rec].Detail += "; server " + cs.coping()
		}
	}
}

// serverRetired reports whether the call's stdio server takes no new
// request any more (see client.Client.Retired).
func (cs *callState) serverRetired() bool {
	if cs.client == nil {
		return false
	}
	retired := cs.client.Retired()
	if retired == nil {
		return false
	}
	select {
	case <-retired:
		return true
	default:
		return false
	}
}

// cutByUs reports whether the call ended because mcpchaos cut it: a
// cancel or disconnect, a timeout, the end of the run, or its stdio server
// killed or closed by a fault — not a server that exited on its own
// (cs.mu held).
func (cs *callState) cutByUs() bool {
	return cs.stopOutcome != "" || (cs.client != nil && cs.client.Cut())
}

// coping classifies how the server fared with a stalled reader.
func (cs *callState) coping() string {
	switch {
	case cs.rec.Outcome == results.TransportError || cs.rec.Outcome == results.ProtocolError:
		return "errored"
	case cs.burst >= 2:
		return "buffered"
	case cs.prog.skipped():
		return "dropped"
	}
	return "blocked"
}
