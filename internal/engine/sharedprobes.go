package engine

import (
	"time"

	"github.com/mcpchaos/mcpchaos/report"
)

// The probes of a shard whose server the other shards share
// (Plan.SharesServer) read every shard's work. They are read once every
// shard's calls are over — known from --start-at: the load ends at the
// same instant everywhere, and no call outlasts it by more than the
// graceful stop or its cap (callBound) — and then the grace. The shard
// records that its readings are the server's (report.SharedServer): the
// merge takes their largest instead of their sum, and measures the leaked
// call-seconds from every shard's samples.

// sharedFrom returns when the grace starts: after the last cancel (or cut)
// of the run's calls, lastStop, in a whole run or a shard of its own
// servers; in a shard of a shared server, after every shard's calls are
// over, or, without --start-at, after this shard's own calls (ended at
// ownEnd), which is the best it can know. A log probe alone reads only
// this shard's calls (by their markers): it waits for nobody else.
func (pr *probeRun) sharedFrom(lastStop, ownEnd time.Time) time.Time {
	p := pr.r.plan
	if !p.SharesServer() || len(pr.counts) == 0 && pr.proc == nil {
		return lastStop
	}
	if over, ok := p.othersOver(); ok {
		return later(lastStop, over)
	}
	if note := p.SharedProbesNote(); note != "" {
		pr.noteError(note)
	}
	return later(lastStop, ownEnd)
}

// shared records, in a shard of a shared server, that its probes read the
// server's whole work, which of them do (every probe but a log probe, which
// counts this shard's calls), and says where the leaked call-seconds are.
func (pr *probeRun) shared(out *report.Orphans) {
	p := pr.r.plan
	if !p.SharesServer() || len(pr.counts) == 0 && pr.proc == nil {
		return
	}
	if out.Shared == nil {
		out.Shared = &report.SharedServer{}
	}
	_, out.Shared.AfterAll = p.othersOver()
	out.Shared.ServerProbes = out.Shared.ServerProbes[:0]
	for _, c := range pr.counts {
		out.Shared.ServerProbes = append(out.Shared.ServerProbes, c.Name())
	}
	if pr.proc != nil {
		out.Shared.ServerProbes = append(out.Shared.ServerProbes, pr.procName)
	}
	if len(pr.counts) > 0 {
		pr.errors = append(pr.errors, report.SharedLeakNote)
	}
}

// later returns the later of two times.
func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// earlier returns the earlier of two times.
func earlier(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}
