package engine

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/faults"
	"github.com/mcpchaos/mcpchaos/results"
)

// slowActor is a fault whose Act blocks until release is closed, like a
// cancel written to a starved server's pipe.
type slowActor struct{ release chan struct{} }

func (f slowActor) Act(faults.Call, faults.Info) (string, error) {
	<-f.release
	return "acted late", nil
}

// TestFaultActingWhenRecorded: a fault still acting when its call's late
// window ends acted, so the record (taken then) must count it as injected,
// not as skipped because "the call ended first". The record used to be
// taken at once, marking the fault skipped, and the fault's own entry was
// then dropped: a cancel_race that did cancel was counted 0 times.
func TestFaultActingWhenRecorded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		now := time.Now()
		cs := &callState{r: &runner{}, spec: &CallSpec{Tool: "echo"}, sent: now, responseAt: now, final: finalResult}
		cs.rec = results.Record{Type: results.TypeCall, Scheduled: now}
		act := slowActor{release: make(chan struct{})}
		a := &armed{kind: "cancel_race", act: act, when: faults.When{AtResponse: true, EvenAfterResponse: true}}
		cs.armed = []*armed{a}
		fired := make(chan struct{})
		go func() {
			cs.fire(a, now)
			close(fired)
		}()
		synctest.Wait() // the fault is in its Act
		recorded := make(chan *results.Record, 1)
		go func() { recorded <- cs.record() }()
		synctest.Wait() // the record was taken, or waits for the fault
		close(act.release)
		<-fired
		rec := <-recorded
		if len(rec.Faults) != 1 || rec.Faults[0].Skipped || rec.Faults[0].Detail != "acted late" {
			t.Fatalf("record's faults %+v, want the one fault injected with detail %q", rec.Faults, "acted late")
		}
	})
}

// countingActor is a fault that counts its Acts.
type countingActor struct{ n *int }

func (f countingActor) Act(faults.Call, faults.Info) (string, error) {
	*f.n++
	return "acted", nil
}

// TestFaultAfterRecordSkipped: a fault whose moment comes after its call
// was recorded does nothing and leaves the record as it was (skipped).
func TestFaultAfterRecordSkipped(t *testing.T) {
	now := time.Now()
	cs := &callState{r: &runner{}, spec: &CallSpec{Tool: "echo"}, sent: now, responseAt: now, final: finalResult}
	cs.rec = results.Record{Type: results.TypeCall, Scheduled: now}
	var acts int
	a := &armed{kind: "cancel_race", act: countingActor{&acts}, when: faults.When{AtResponse: true, EvenAfterResponse: true}}
	cs.armed = []*armed{a}
	rec := cs.record()
	cs.fire(a, now)
	if acts != 0 || len(rec.Faults) != 1 || !rec.Faults[0].Skipped {
		t.Fatalf("%d acts, record's faults %+v; want no act and the one fault skipped", acts, rec.Faults)
	}
}

// TestFaultDueWhenRecorded: a fault whose moment came (the response, for a
// cancel race) counts as acting from then, before the goroutine that acts
// runs, so a record taken first (a loaded machine ran that goroutine
// late) waits for it and shows it injected.
func TestFaultDueWhenRecorded(t *testing.T) {
	now := time.Now()
	cs := &callState{r: &runner{}, spec: &CallSpec{Tool: "echo"}, sent: now}
	cs.rec = results.Record{Type: results.TypeCall, Scheduled: now}
	var acts int
	a := &armed{kind: "cancel_race", act: countingActor{&acts}, when: faults.When{AtResponse: true, EvenAfterResponse: true}}
	cs.armed = []*armed{a}
	cs.mu.Lock()
	cs.onResponseFaults(now) // as onResponse does, before it sets the answer
	cs.final, cs.responseAt = finalResult, now
	acting := cs.acting
	cs.mu.Unlock()
	if acting != 1 {
		t.Errorf("%d faults acting once the response came, want the cancel race", acting)
	}
	rec := cs.record()
	if len(rec.Faults) != 1 || rec.Faults[0].Skipped || acts != 1 {
		t.Fatalf("%d acts, record's faults %+v; want the one fault injected", acts, rec.Faults)
	}
}
