package summary

import (
	"fmt"
	"strings"
)

// A check on a key that describes nothing in this run fails, with the
// reason: a section the run never had (a log probe's, a gateway's), or an
// area it never exercised (tasks.leftover == 0 when no task was made). A
// 0 read there would pass a gate on something the run never tested.

// optionalSection is a section the summary has only when the run had what
// it measures: its JSON object is absent otherwise (a nil pointer).
type optionalSection struct {
	key  string // dotted, e.g. "cancellation.log"
	when string // when it is there, for the reason
}

// optionalSections are the summary's sections that can be absent, deepest
// last (TestOptionalSectionsComplete holds it to the pointer fields).
var optionalSections = [...]optionalSection{
	{"gateway", "it comes with the scenario's gateway section"},
	{"limits", "it comes with `mcpchaos limits`"},
	{"cancellation.process_cpu", "it comes with a process probe that measured the server"},
	{"cancellation.client", "the results file was written before it existed"},
	{"cancellation.cut_pings", "it comes with pings sent after cuts over HTTP, when the process probe is the only server-side evidence"},
	{"cancellation.log", "it comes with a log probe"},
	{"cancellation.server_processes", "it comes with a stdio target"},
}

// exerciseRule is a section whose keys describe nothing unless something
// happened in the run; the keys in counts say how often it did, and are
// always evaluated (a check can assert that it never happened).
type exerciseRule struct {
	prefix string
	counts []string
	idle   func(*Summary) bool
	why    string
}

var exerciseRules = [...]exerciseRule{
	{"tasks.", []string{"tasks.created"},
		func(s *Summary) bool { return s.Tasks.Created == 0 }, "no task was created"},
	// 2026 asks in input_required results; 2025 with requests of its own,
	// counted by kind as answered.
	{"mrtr.", []string{"mrtr.input_required", "mrtr.load_shed", "mrtr.elicitation", "mrtr.sampling", "mrtr.roots"},
		func(s *Summary) bool {
			m := s.MRTR
			return m.InputRequired+m.LoadShed+m.Elicitation+m.Sampling+m.Roots == 0
		}, "no call was asked for input (no input_required result, no 2025 input request answered)"},
	{"cancellation.", []string{"cancellation.cancels"},
		func(s *Summary) bool { return s.verdictIs(AreaCancellation, StatusNotExercised) }, "no call was cancelled or disconnected"},
	{"progress.", []string{"progress.notifications", "progress.calls", "progress.violations.unknown_token"},
		func(s *Summary) bool { return s.verdictIs(AreaProgress, StatusNotExercised) }, "no call asked for progress"},
	{"gateway.", []string{"gateway.calls", "gateway.executions", "gateway.not_seen", "gateway.unrecorded", "gateway.truth_unread"},
		func(s *Summary) bool { return s.verdictIs(AreaGateway, StatusNotExercised) }, "no target recorded any of our calls"},
}

// unexercised returns why key describes nothing in this run, or "". objects
// are the JSON objects the summary has, by dotted key.
func (s *Summary) unexercised(key string, objects map[string]bool) string {
	for i := len(optionalSections) - 1; i >= 0; i-- {
		o := optionalSections[i]
		if strings.HasPrefix(key, o.key+".") && !objects[o.key] && objects[parentKey(o.key)] {
			return fmt.Sprintf("this run's summary has no %s section (%s): %s describes nothing", o.key, o.when, key)
		}
	}
	for _, r := range exerciseRules {
		if !strings.HasPrefix(key, r.prefix) || !r.idle(s) {
			continue
		}
		for _, c := range r.counts {
			if key == c {
				return ""
			}
		}
		return fmt.Sprintf("%s in this run: %s describes nothing; to gate on that, check %s", r.why, key, r.counts[0])
	}
	return ""
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
