package engine

import "github.com/mcpchaos/mcpchaos/internal/probes"

// The load's threads, the replaced servers' among them (issue 25). On
// stdio a disconnect ends a server and the next call starts another: a
// reading at the load's end set against one at its start judged the load
// by the last server's threads alone. The sampler adds every reading to a
// ledger (probes.ThreadLedger) from the load's first reading to its last,
// and what the load's threads did (its CPU-bound work, its run-queue
// wait, its lead slice before a window's cut) is read from that.

// startThreads starts the ledger at the load's first reading.
func (pr *probeRun) startThreads(ps probes.ProcessSample) {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	pr.threads = probes.NewThreadLedger(probes.LoadSlice)
	pr.threads.Add(ps)
}

// addThreads adds a reading of the sampler's (pr.mu held); none once the
// load has ended.
func (pr *probeRun) addThreads(ps probes.ProcessSample) {
	if pr.threads != nil {
		pr.threads.Add(ps)
	}
}

// threadsTo returns two readings to set against each other for what the
// load's threads did from its start to ps: an empty one and the ledger
// with ps added; without a ledger, the load's first reading and ps.
func (pr *probeRun) threadsTo(ps probes.ProcessSample) (from, to probes.ProcessSample) {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	return pr.threadsToLocked(ps)
}

// threadsToLocked is threadsTo with pr.mu held.
func (pr *probeRun) threadsToLocked(ps probes.ProcessSample) (from, to probes.ProcessSample) {
	if pr.threads == nil {
		return pr.loadFrom, ps
	}
	pr.threads.Add(ps)
	return probes.EmptySample(), pr.threads.Sample()
}

// endThreads is threadsTo at the load's last reading, after which the
// ledger takes no more: the sampler goes on through the grace.
func (pr *probeRun) endThreads(ps probes.ProcessSample) (from, to probes.ProcessSample) {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	from, to = pr.threadsToLocked(ps)
	pr.threads = nil
	return from, to
}
