package summary

import (
	"fmt"
	"strings"

	"github.com/mcpchaos/mcpchaos/internal/scenarios"
)

// A check on a key that describes nothing in this run fails, with the
// reason: a section the run never had (a log probe's, a gateway's), an
// area it never exercised (tasks.leftover == 0 when no task was made), a
// value it never found (a null limits.rate) or a statistic of no values
// (mrtr.server_ms.p50 when no call took a round). A 0 read there would
// pass a gate on something the run never tested.

// optionalSection is a section the summary has only when the run had what
// it measures: its JSON object is absent otherwise (a nil pointer).
type optionalSection struct {
	key  string // dotted, e.g. "cancellation.log"
	when string // when it is there, for the reason
}

// optionalSections are the summary's sections that can be absent, a
// section before those inside it (TestOptionalSectionsComplete holds the
// list to the pointer fields).
var optionalSections = [...]optionalSection{
	{"gateway", "it comes with the scenario's gateway section"},
	{"limits", "it comes with `mcpchaos limits`"},
	{"cancellation.process_cpu", "it comes with a process probe that measured the server"},
	{"cancellation.client", "it comes with an orphan probe"},
	{"cancellation.cut_pings", "it comes with pings sent after cuts over HTTP, when the process probe is the only server-side evidence"},
	{"cancellation.work_fences", "it comes with calls cancelled over stdio"},
	{"cancellation.contention", "it comes with a quiet window that cut calls and a fault's cut, when the process probe is the only server-side evidence"},
	{"cancellation.log", "it comes with a log probe"},
	{"cancellation.server_processes", "it comes with a stdio target"},
}

// exerciseRule is a section whose keys describe nothing unless something
// happened in the run (idle reports that it did not). The keys in always
// (a key, or a prefix ending in ".") are evaluated anyway: they count
// whether it happened, so a check can assert that it never did, or they
// measure something else; advice names them.
type exerciseRule struct {
	prefix string
	always []string
	idle   func(*Summary) bool
	why    string
	advice string
}

// exerciseRules are the sections a run may leave unexercised.
var exerciseRules = [...]exerciseRule{
	{"tasks.", []string{"tasks.created"},
		func(s *Summary) bool { return s.Tasks.Created == 0 }, "no task was created", "tasks.created"},
	{"mrtr.", []string{"mrtr.input_required", "mrtr.load_shed", "mrtr.elicitation", "mrtr.sampling", "mrtr.roots"},
		func(s *Summary) bool { return !s.MRTR.Asked() }, "no call was asked for input",
		"mrtr.input_required (2026) or mrtr.elicitation (2025)"},
	// The process's CPU, the stdio servers' shutdown and our own stalls are
	// measured whether a call was cut or not.
	{"cancellation.", []string{"cancellation.cancels", "cancellation.process_cpu.", "cancellation.server_processes.",
		"cancellation.client.", "cancellation.counting_probes", "cancellation.work_grace_ms", "cancellation.quiet_window_ms"},
		func(s *Summary) bool { return s.verdictIs(AreaCancellation, StatusNotExercised) }, "no call was cancelled or disconnected",
		"cancellation.cancels"},
	{"progress.", []string{"progress.notifications", "progress.calls", "progress.violations.unknown_token",
		"progress.grace_ms", "progress.flood_hz", "progress.stall_ms"},
		func(s *Summary) bool { return s.verdictIs(AreaProgress, StatusNotExercised) }, "no call asked for progress",
		"progress.notifications"},
	{"gateway.", []string{"gateway.calls", "gateway.executions", "gateway.not_seen", "gateway.unrecorded", "gateway.truth_unread"},
		func(s *Summary) bool { return s.verdictIs(AreaGateway, StatusNotExercised) }, "no target recorded any of our calls",
		"gateway.executions"},
}

// statKeys are the last segments of a latency's statistics, which
// describe nothing when its count is 0.
var statKeys = map[string]bool{"p50": true, "p90": true, "p99": true, "p999": true, "max": true, "mean": true}

// unexercised returns why key describes nothing in this run, or "".
// objects are the JSON objects the summary has by dotted key (true), and
// its null values (false); values its numbers.
func (s *Summary) unexercised(key string, objects map[string]bool, values map[string]float64) string {
	for i := len(optionalSections) - 1; i >= 0; i-- {
		o := optionalSections[i]
		if strings.HasPrefix(key, o.key+".") && !objects[o.key] && objects[parentKey(o.key)] {
			return fmt.Sprintf("this run's summary has no %s section (%s): %s describes nothing", o.key, o.when, key)
		}
	}
	if isObject, ok := objects[key]; ok && !isObject {
		return fmt.Sprintf("%s is null in this run's summary: nothing was found to give it a value", key)
	}
	for _, r := range exerciseRules {
		if strings.HasPrefix(key, r.prefix) && r.idle(s) && !r.evaluated(key) {
			return fmt.Sprintf("%s in this run: %s describes nothing; to gate on that, check %s", r.why, key, r.advice)
		}
	}
	parent := parentKey(key)
	if count, ok := values[parent+".count"]; parent != "" && statKeys[key[len(parent)+1:]] && ok && count == 0 {
		return fmt.Sprintf("%s has no values in this run (%s.count is 0): %s describes nothing", parent, parent, key)
	}
	return ""
}

// evaluated reports whether key is one of the rule's keys evaluated
// whatever happened.
func (r exerciseRule) evaluated(key string) bool {
	for _, k := range r.always {
		if key == k || (strings.HasSuffix(k, ".") && strings.HasPrefix(key, k)) {
			return true
		}
	}
	return false
}

// neverHad is the error of a check on a section that a run of sc cannot
// have, known before any load: a gateway's without a gateway section, a
// log probe's without one. (The others depend on what the run meets.)
func neverHad(sc *scenarios.Scenario, c Check) error {
	fail := func(want string) error {
		return &CheckError{Line: c.Line, Column: c.Column, Check: c.String(),
			Msg: fmt.Sprintf("the scenario has no %s, so %s describes nothing in its runs (the check would fail)", want, c.Key)}
	}
	switch {
	case strings.HasPrefix(c.Key, "gateway.") && sc.Gateway == nil:
		return fail("gateway section")
	case strings.HasPrefix(c.Key, "cancellation.log."):
		for _, p := range sc.Orphans.Probes {
			if p.Log != nil {
				return nil
			}
		}
		return fail("log probe (orphans.probes)")
	}
	return nil
}

// readings are the summary's numbers by dotted key, and its objects and
// nulls (flattenObjects), for judging checks.
func (s *Summary) readings() (values map[string]float64, objects map[string]bool, err error) {
	leaves, objects, err := flattenObjects(s, make(map[string]bool))
	values = make(map[string]float64, len(leaves))
	for _, l := range leaves {
		values[l.key] = l.value
	}
	return values, objects, err
}

// parentKey is the dotted key of the object that holds key ("" at the top).
func parentKey(key string) string {
	if i := strings.LastIndexByte(key, '.'); i >= 0 {
		return key[:i]
	}
	return ""
}

// verdictIs reports whether the verdict of area has status.
func (s *Summary) verdictIs(area, status string) bool {
	for _, v := range s.Verdicts {
		if v.Area == area {
			return v.Status == status
		}
	}
	return false
}

// Described splits checks into those whose key (or histogram) describes
// something in this summary and those that describe nothing (each with
// the reason, as a check's failure gives it): for a caller that judges
// part of a run by checks written for the whole (a limits search's
// steps, which make no faults).
func (s *Summary) Described(checks []Check) (kept []Check, left []string) {
	values, objects, err := s.readings()
	if err != nil {
		return checks, nil
	}
	for _, c := range checks {
		if c.Hist == "" {
			if why := s.unexercised(c.Key, objects, values); why != "" {
				left = append(left, c.String()+": "+why)
				continue
			}
		}
		kept = append(kept, c)
	}
	return kept, left
}
