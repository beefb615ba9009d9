package merge

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mcpchaos/mcpchaos/client"
	"github.com/mcpchaos/mcpchaos/report"
	"github.com/mcpchaos/mcpchaos/results"
)

// Merged is one or more results files read into one Aggregator: the
// records of every file (times are absolute, so seconds line up on the
// wall clock), their run inputs combined (report.MergeInputs), and the first
// file's checks, ready to be evaluated again on the merged data.
type Merged struct {
	Agg             *report.Aggregator
	Meta            report.Meta
	Inputs          report.RunInputs
	Checks          []report.Check
	FailOnViolation bool
	// Files describes each file read, in order.
	Files []MergedFile
	// Notes are what a reader should know: files of different scenarios,
	// what an old or torn file could not give. `mcpchaos report` prints
	// them on stderr.
	Notes []string
	// Limits is what `mcpchaos limits` found, from the first file's
	// trailer (the search is not recomputed from the calls).
	Limits *report.Limits
}

// MergedFile is one file of a merge.
type MergedFile struct {
	Path    string
	Header  results.Header
	Trailer bool // the run ended normally (or by Ctrl-C) and wrote its trailer
	Torn    bool
	Records int
}

// MergeOptions are the hooks and rules of a merge; the zero value merges.
type MergeOptions struct {
	// OnRecord, if set, sees every record after the Aggregator did (the
	// record, its maps, slices and pointers included, is reused
	// afterwards: copy deeply what must outlive the call).
	OnRecord func(*results.Record) error
	// OnHeader, if set, sees each file's header (i counts files from 0)
	// before its records.
	OnHeader func(i int, h *results.Header) error
	// OnSample, if set, sees every probe sample.
	OnSample func(*results.Sample) error
	// SameScenario makes files of different scenarios (name, seed or
	// configuration) an error instead of a note. Shards of a run are
	// always held to it, and to their split: one count, each index once,
	// no whole run among them (shards.go).
	SameScenario bool
	// NoSeconds keeps no second-by-second data (Aggregator.KeepSeconds
	// false): only the HTML report and the hlog interval log draw on it,
	// and it grows with the run's length.
	NoSeconds bool
}

// ctxEvery is how many records pass between looks at the context.
const ctxEvery = 1 << 16

// Merge reads the results files at paths, one line at a time, into one
// Aggregator. Memory does not grow with the number of records.
func Merge(ctx context.Context, paths []string, o MergeOptions) (*Merged, error) {
	if len(paths) == 0 {
		return nil, fmt.Errorf("merge results: no files")
	}
	m := &Merged{Agg: report.NewAggregator(report.Rules{})}
	m.Agg.KeepSeconds(!o.NoSeconds)
	st := &mergeState{spans: true}
	for i, path := range paths {
		f, trailer, err := m.scan(ctx, i, path, o, st)
		if err != nil {
			return nil, err
		}
		if err := m.addFile(i, f, trailer, o, st); err != nil {
			return nil, err
		}
	}
	m.Notes = append(m.Notes, st.shards.notes()...)
	m.Inputs = report.MergeInputs(st.inputs)
	if note := st.shared.leaked(&m.Inputs.Orphans, st.shards.missing()); note != "" {
		m.note("%s", note)
	}
	if st.spans {
		m.Meta.Duration = st.end.Sub(m.Meta.Started)
	}
	m.Inputs.Duration = m.Meta.Duration
	m.Agg.SetInputs(m.Inputs)
	return m, nil
}

// mergeState is what Merge gathers across files.
type mergeState struct {
	inputs []report.RunInputs
	spans  bool      // every file's duration is known
	end    time.Time // the latest end of a file's run
	shards shardSet
	shared sharedSamples
}

// scan reads the file at path, the i-th, into m's aggregator and st; it
// returns what it learned of the file and its trailer (nil when it has
// none).
func (m *Merged) scan(ctx context.Context, i int, path string, o MergeOptions, st *mergeState) (MergedFile, *results.Trailer, error) {
	f := MergedFile{Path: path}
	var trailer *results.Trailer
	n := 0
	torn, err := results.ScanFile(path, results.Handler{
		Reuse: true, // the Aggregator, st.shared and OnRecord keep nothing of a record
		Header: func(h *results.Header) error {
			f.Header = *h
			if err := st.shards.add(path, h); err != nil {
				return err
			}
			st.shared.file(h)
			if o.OnHeader != nil {
				return o.OnHeader(i, h)
			}
			return nil
		},
		Record: func(r *results.Record) error {
			if n++; n%ctxEvery == 0 && ctx.Err() != nil {
				return ctx.Err()
			}
			m.Agg.Add(r)
			st.shared.call(r)
			if o.OnRecord != nil {
				return o.OnRecord(r)
			}
			return nil
		},
		Sample: func(s *results.Sample) error {
			st.shared.add(s)
			if o.OnSample != nil {
				return o.OnSample(s)
			}
			return nil
		},
		Trailer: func(t *results.Trailer) error {
			c := *t
			trailer = &c
			return nil
		},
	})
	f.Torn, f.Records, f.Trailer = torn, n, trailer != nil
	return f, trailer, err
}

// addFile checks the i-th file against the first and adds its inputs,
// span and meta to m.
func (m *Merged) addFile(i int, f MergedFile, trailer *results.Trailer, o MergeOptions, st *mergeState) error {
	if i == 0 {
		if err := m.first(f, trailer); err != nil {
			return err
		}
	} else if err := m.sameRun(f.Header, o.SameScenario || f.Header.Shard != nil, f.Path); err != nil {
		return err
	}
	in, dur, ok, err := m.fileInputs(f, trailer)
	if err != nil {
		return err
	}
	if ok {
		st.inputs = append(st.inputs, in)
		st.shared.learn(f.Path, in.Orphans)
	}
	if dur <= 0 {
		st.spans = false
	} else if e := f.Header.Started.Add(dur); e.After(st.end) {
		st.end = e
	}
	if trailer != nil && trailer.Interrupted {
		m.Meta.Interrupted = true
	}
	m.addMeta(f.Header, i)
	m.Files = append(m.Files, f)
	return nil
}

// Summary builds the merged summary and evaluates the checks on it.
func (m *Merged) Summary() *report.Summary {
	s := m.Agg.Summary(m.Meta)
	s.Limits = m.Limits
	s.Evaluate(m.Checks, m.FailOnViolation)
	return s
}

// first takes the checks and rules of the first file (from its header, or
// from the summary in the trailer of a file written before headers kept
// them).
func (m *Merged) first(f MergedFile, trailer *results.Trailer) error {
	if trailer != nil && len(trailer.Summary) > 0 {
		var found struct {
			Limits *report.Limits `json:"limits"`
		}
		if err := json.Unmarshal(trailer.Summary, &found); err != nil {
			return fmt.Errorf("%s: decode the trailer's summary: %w", f.Path, err)
		}
		m.Limits = found.Limits
	}
	if e := f.Header.Evaluation; e != nil {
		checks, err := report.ParseChecks(e.Checks)
		if err != nil {
			return fmt.Errorf("%s: %w", f.Path, err)
		}
		m.Checks, m.FailOnViolation = checks, e.FailOnViolation
		m.Agg.SetRules(report.RulesOf(e.Progress))
		return nil
	}
	if trailer == nil || len(trailer.Summary) == 0 {
		m.note("%s records no checks (written by an mcpchaos before schema_version %d, and without a trailer): no check is evaluated",
			f.Path, results.SchemaVersion)
		return nil
	}
	old, err := readOldSummary(trailer.Summary)
	if err != nil {
		return fmt.Errorf("%s: %w", f.Path, err)
	}
	for _, c := range old.Checks {
		pc, err := report.ParseCheck(c.Check)
		if err != nil {
			return fmt.Errorf("%s: %w", f.Path, err)
		}
		pc.Line = c.Line
		m.Checks = append(m.Checks, pc)
	}
	m.FailOnViolation = old.FailOnViolation
	m.Agg.SetRules(report.RulesOf(old.Progress))
	return nil
}

// fileInputs returns a file's run inputs and the length of its load; ok
// is false when the file has none.
func (m *Merged) fileInputs(f MergedFile, trailer *results.Trailer) (in report.RunInputs, dur time.Duration, ok bool, err error) {
	switch {
	case trailer == nil:
		m.note("%s has no trailer (the run did not end normally): its connection counts, orphan probes and background faults are missing, and its length is taken from its calls", f.Path)
		return in, 0, false, nil
	case len(trailer.Run) > 0:
		in, err = report.DecodeInputs(trailer.Run)
		if err != nil {
			return in, 0, false, fmt.Errorf("%s: %w", f.Path, err)
		}
		return in, in.Duration, true, nil
	case len(trailer.Summary) > 0:
		old, err := readOldSummary(trailer.Summary)
		if err != nil {
			return in, 0, false, fmt.Errorf("%s: %w", f.Path, err)
		}
		m.note("%s was written before schema_version %d: its orphan probes and background faults are not re-evaluated (their keys are 0); connection counts come from its summary", f.Path, results.SchemaVersion)
		in.Connection = old.Protocol.Connection
		return in, secs(old.DurationS), true, nil
	}
	return in, 0, false, nil
}

func secs(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// oldSummary is what a summary JSON of schema 1 gives a merge.
type oldSummary struct {
	DurationS       float64 `json:"duration_s"`
	FailOnViolation bool    `json:"fail_on_violation"`
	Checks          []struct {
		Check string `json:"check"`
		Line  int    `json:"line"`
	} `json:"checks"`
	Progress results.ProgressRules `json:"progress"`
	Protocol struct {
		Connection client.Stats `json:"connection"`
	} `json:"protocol"`
}

func readOldSummary(raw json.RawMessage) (*oldSummary, error) {
	var s oldSummary
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("decode the trailer's summary: %w", err)
	}
	return &s, nil
}

// sameRun compares a later file's header with the first's.
func (m *Merged) sameRun(h results.Header, strict bool, path string) error {
	first := m.Files[0]
	var diff []string
	if h.Scenario != first.Header.Scenario {
		diff = append(diff, fmt.Sprintf("scenario %q, not %q", h.Scenario, first.Header.Scenario))
	}
	if h.Seed != first.Header.Seed {
		diff = append(diff, fmt.Sprintf("seed %d, not %d", h.Seed, first.Header.Seed))
	}
	if !sameJSON(h.Config, first.Header.Config) {
		diff = append(diff, "another configuration")
	}
	if len(diff) == 0 {
		return nil
	}
	msg := fmt.Sprintf("%s ran another scenario than %s (%s)", path, first.Path, strings.Join(diff, ", "))
	if strict {
		return fmt.Errorf("%s", msg)
	}
	m.note("%s: the checks, fail_on_violation and progress rules are %s's", msg, first.Path)
	return nil
}

// sameJSON compares two JSON values ignoring white space.
func sameJSON(a, b json.RawMessage) bool {
	var ca, cb bytes.Buffer
	if json.Compact(&ca, a) != nil || json.Compact(&cb, b) != nil {
		return bytes.Equal(a, b)
	}
	return bytes.Equal(ca.Bytes(), cb.Bytes())
}

// addMeta folds file i's header into the merged Meta: the first file's
// scenario and seed, the earliest start, and every distinct era,
// transport, target and server.
func (m *Merged) addMeta(h results.Header, i int) {
	if i == 0 {
		m.Meta.Scenario, m.Meta.Seed, m.Meta.Started = h.Scenario, h.Seed, h.Started
		m.Meta.Era, m.Meta.Transport, m.Meta.Target, m.Meta.Server = h.Era, h.Transport, h.Target, h.Server
		m.Meta.HTTPVersion = h.HTTPVersion
		return
	}
	if h.Started.Before(m.Meta.Started) {
		m.Meta.Started = h.Started
	}
	join := func(have *string, add string) {
		if add != "" && !slices.Contains(strings.Split(*have, ", "), add) {
			*have += ", " + add
		}
	}
	join(&m.Meta.Era, h.Era)
	join(&m.Meta.Transport, h.Transport)
	if m.Meta.HTTPVersion == "" {
		m.Meta.HTTPVersion = h.HTTPVersion
	} else {
		join(&m.Meta.HTTPVersion, h.HTTPVersion)
	}
	join(&m.Meta.Target, h.Target)
	join(&m.Meta.Server, h.Server)
}

func (m *Merged) note(format string, args ...any) {
	m.Notes = append(m.Notes, fmt.Sprintf(format, args...))
}
