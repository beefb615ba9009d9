package report

import (
	"math"
	"slices"
	"strings"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/series"
	"github.com/mcpchaos/mcpchaos/results"
)

// Shards of one run that share a server (an HTTP target) read the same
// server-wide quantities with their probes: the server's calls in flight,
// its CPU, its children. A merge must not add those readings up, and the
// leaked call-seconds need every shard's calls in flight at once, which no
// shard knows alone (docs/distributed.md).

// SharedServer is what a shard of a shared server records about its
// probes, in the trailer's run inputs.
type SharedServer struct {
	// AfterAll says the probes were read after every shard's calls were
	// over (the run had --start-at, so the shard knew when the others
	// end); false: after the shard's own calls only, and the readings may
	// count the other shards' calls still running.
	AfterAll bool `json:"after_all"`
	// LeakProbe is the count probe whose samples measure leaked work (the
	// first one that could be read), "" when there is none; Baseline is
	// its reading before the load.
	LeakProbe string  `json:"leak_probe,omitempty"`
	Baseline  float64 `json:"baseline"`
	// ServerProbes names the probes that read the server's whole work
	// (metric, tool, process): the same reading in every shard. The
	// others (log probes) count this shard's calls alone.
	ServerProbes []string `json:"server_probes,omitempty"`
}

// SharedLeakNote is the probe note of a shard of a shared server: its
// leaked call-seconds are measured by the merge of every shard, which
// drops the note when it did.
const SharedLeakNote = "leaked call-seconds: this shard's probes count the calls of the other shards that share the server: " +
	"mcpchaos report measures them from every shard's samples"

// mergeShared merges a shared server's readings: every shard read the same
// server-wide quantity, so the merge takes the largest reading (the sum
// would count it once per shard) — of the probes that read the server
// (ServerProbes); a log probe's orphans are each shard's calls, and add
// up. The leaked call-seconds are measured from every shard's calls and
// samples afterwards (sharedSamples.leaked).
func mergeShared(o *Orphans, in Orphans) {
	o.Orphaned = max(o.Orphaned, in.Orphaned)
	for k, v := range in.ByProbe {
		if o.ByProbe == nil {
			o.ByProbe = map[string]float64{}
		}
		if slices.Contains(in.Shared.ServerProbes, k) {
			o.ByProbe[k] = max(o.ByProbe[k], v)
		} else {
			o.ByProbe[k] += v
		}
	}
	o.LeftoverCPUSeconds = max(o.LeftoverCPUSeconds, in.LeftoverCPUSeconds)
	if o.Shared == nil {
		s := *in.Shared
		s.ServerProbes = slices.Clone(s.ServerProbes)
		o.Shared = &s
		return
	}
	o.Shared.AfterAll = o.Shared.AfterAll && in.Shared.AfterAll
	o.Shared.Baseline = max(o.Shared.Baseline, in.Shared.Baseline)
	if o.Shared.LeakProbe == "" {
		o.Shared.LeakProbe = in.Shared.LeakProbe
	}
}

// mergeSharedWindows merges the quiet windows of shards of a shared
// server: with --start-at they paused at the same instants and measured
// the same server, so the windows, their server readings and their list
// are one shard's (the largest readings); the calls they cancelled and the
// ticks they skipped are each shard's own and add up (mergeOrphans).
func mergeSharedWindows(w *Windows, in Windows) {
	w.Count = max(w.Count, in.Count)
	w.LeftoverCPUS = max(w.LeftoverCPUS, in.LeftoverCPUS)
	w.NoiseCPUS = max(w.NoiseCPUS, in.NoiseCPUS)
	w.Above = max(w.Above, in.Above)
	w.Quiet = max(w.Quiet, in.Quiet)
	w.QuietNoiseRate = max(w.QuietNoiseRate, in.QuietNoiseRate)
	w.MeasuredMs = max(w.MeasuredMs, in.MeasuredMs)
	if len(w.List) == 0 {
		w.List = slices.Clone(in.List)
	}
}

// sharedSamples collects, while a merge reads the files of shards over
// HTTP, what the leaked call-seconds of a shared server need: every
// shard's calls, from send to end, counted on a time grid (series.Bins:
// memory bounded by the run's length, not its calls), each shard's
// sampled calls in flight (used only when no call was sent), and every
// shard's readings of each probe (they read the same server, so together
// they are one finer series of it).
//
// The shards of one run have the same probes: once a file's trailer says
// whether they shared a server and which probe measures leaked work
// (learn), the samples of other probes, or all of them, are let go. A
// shard without a leak probe (its baseline could not be read), or naming
// another one, leaves the leaked work unmeasured: why says so.
type sharedSamples struct {
	on      bool // the file being read is collected
	off     bool // a trailer said the shards' server is not shared
	keep    string
	why     string // the leaked call-seconds cannot be measured: why
	calls   series.Bins
	clients [][]series.Point
	probes  map[string][]reading
	last    time.Time // the file's previous sample
}

// reading is one probe reading of a shard: the engine stamps it when the
// read ends (T), its value holds at some instant of the read, which began
// at from: the sample's read_us before T, or, in files of versions that
// did not record it, at the latest at the shard's previous sample.
type reading struct {
	series.Point
	from time.Time
}

// maxRead bounds how long before its stamp a reading may have begun (a
// probe's read times out after the sampling period, or 1 s).
const maxRead = time.Second

// file starts a file: a shard whose server may be shared is collected.
func (s *sharedSamples) file(h *results.Header) {
	s.on = !s.off && s.why == "" && h.Shard != nil && h.Transport == "http"
	s.last = time.Time{}
	if s.on {
		s.clients = append(s.clients, nil)
	}
}

// learn takes what the trailer of a file, path, said of its probes.
func (s *sharedSamples) learn(path string, o Orphans) {
	switch {
	case s.off:
		return
	case o.Shared == nil:
		s.off, s.on, s.clients, s.probes, s.calls = true, false, nil, nil, series.Bins{}
		return
	case s.why != "":
		return
	case o.Shared.LeakProbe == "":
		s.why = path + " has no leak probe (its baseline or its samples could not be read)"
	case s.keep != "" && o.Shared.LeakProbe != s.keep:
		s.why = "the shards measure leaked work with different probes (" + s.keep + ", " + o.Shared.LeakProbe + ")"
	}
	if s.why != "" {
		s.on, s.clients, s.probes, s.calls = false, nil, nil, series.Bins{}
		return
	}
	s.keep = o.Shared.LeakProbe
	for name := range s.probes {
		if name != s.keep {
			delete(s.probes, name)
		}
	}
}

// call takes one call record of the file being read: a call that was
// sent counts in flight from its send to its end (or its response, when
// later); one never sent reached no server. No allocation but the grid's
// growth.
func (s *sharedSamples) call(r *results.Record) {
	if !s.on || r.SentUs <= 0 || r.Scheduled.IsZero() {
		return
	}
	sent := r.Scheduled.Add(time.Duration(r.SentUs) * time.Microsecond)
	end := r.Scheduled.Add(time.Duration(max(r.EndUs, r.ResponseUs)) * time.Microsecond)
	s.calls.Add(sent, end)
}

// add takes one sample of the file being read.
func (s *sharedSamples) add(smp *results.Sample) {
	if !s.on {
		return
	}
	last := &s.clients[len(s.clients)-1]
	*last = append(*last, series.Point{T: smp.T, V: float64(smp.ClientInFlight)})
	from := smp.T.Add(-maxRead)
	switch {
	case smp.ReadUs > 0:
		from = smp.T.Add(-time.Duration(min(smp.ReadUs, maxRead.Microseconds())) * time.Microsecond)
	case s.last.After(from) && !s.last.After(smp.T):
		from = s.last
	}
	s.last = smp.T
	for name, v := range smp.Probes {
		if s.keep != "" && name != s.keep {
			continue
		}
		if s.probes == nil {
			s.probes = map[string][]reading{}
		}
		s.probes[name] = append(s.probes[name], reading{series.Point{T: smp.T, V: v}, from})
	}
}

// leaked sets the leaked call-seconds of a shared server: the leak probe's
// readings, by every shard, above the largest of their baselines, minus
// every shard's calls in flight, counted from their records in the
// reading's bin (series.Bins.CountAt: every call that touches the bin, so
// never less than the calls in flight; when no shard sent a call, the
// shards' samples, each at its peak around the reading, series.PeakSum).
// It needs every shard (with one missing, its calls would be
// taken for leaked work), one leak probe named by all, and samples of it:
// otherwise the leaked call-seconds stay unset, the shards' probe note
// gives way to one that says they were not measured and why, and leaked
// returns it for the merge's notes.
func (s *sharedSamples) leaked(o *Orphans, missing []string) (note string) {
	if o.Shared == nil || s.off {
		return ""
	}
	why := s.why
	readings := s.probes[s.keep]
	switch {
	case why != "":
	case len(missing) > 0:
		why = "without shards " + strings.Join(missing, ", ") + ", their calls would count as leaked"
	case len(readings) == 0:
		why = "no shard recorded a sample of " + s.keep
	}
	o.ProbeErrors = slices.DeleteFunc(o.ProbeErrors, func(e string) bool { return e == SharedLeakNote })
	if why != "" {
		note = "leaked call-seconds of the shared server not measured: " + why
		o.ProbeErrors = append(o.ProbeErrors, note)
		return note
	}
	server := make([]series.Point, len(readings))
	for i, r := range readings {
		server[i] = r.Point
	}
	var client []series.Point
	if s.calls.Len() > 0 {
		client = s.callsAt(readings)
	} else {
		client = series.PeakSum(server, s.clients...)
	}
	o.LeakedCallSeconds = series.LeakedCallSeconds(server, client, o.Shared.Baseline)
	return ""
}

// callsAt returns, at each distinct instant of readings (sorted), the most
// calls in flight during the reads stamped then: the largest count of the
// bins from each read's beginning (at the latest) to its stamp, as the
// engine takes the most calls in flight during a read. The bin of the
// stamp alone would miss the calls that ended during the read.
func (s *sharedSamples) callsAt(readings []reading) []series.Point {
	slices.SortStableFunc(readings, func(a, b reading) int { return a.T.Compare(b.T) })
	out := make([]series.Point, 0, len(readings))
	for _, r := range readings {
		if math.IsNaN(r.V) {
			continue
		}
		v := s.calls.Max(r.from, r.T)
		if n := len(out); n > 0 && out[n-1].T.Equal(r.T) {
			out[n-1].V = max(out[n-1].V, v)
			continue
		}
		out = append(out, series.Point{T: r.T, V: v})
	}
	return out
}
