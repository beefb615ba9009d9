package summary

import (
	"reflect"
	"strings"
	"testing"

	"github.com/mcpchaos/mcpchaos/internal/scenarios"
)

// exercised is a summary whose every area was exercised and whose optional
// sections are all there: a check on any key reads its value.
func exercised() *Summary {
	s := &Summary{
		Tasks:   Tasks{Created: 2, Leftover: 1},
		MRTR:    MRTR{InputRequired: 3, Rounds: 3},
		Gateway: &GatewaySummary{GatewayCounts: GatewayCounts{Calls: 4}},
		Limits:  &Limits{},
		Verdicts: []Verdict{{Area: AreaCancellation, Status: StatusPass}, {Area: AreaProgress, Status: StatusPass},
			{Area: AreaGateway, Status: StatusPass}},
	}
	s.Cancellation.Cancels = 5
	s.Cancellation.Log = &LogOrphans{Probe: "log", Matched: 5}
	s.Cancellation.ProcessCPU = &ProcessCPU{}
	return s
}

// setVerdict sets the status of area's verdict.
func setVerdict(s *Summary, area, status string) {
	for i := range s.Verdicts {
		if s.Verdicts[i].Area == area {
			s.Verdicts[i].Status = status
		}
	}
}

// unexercisedCase is a check on a summary made from exercised() by edit.
type unexercisedCase struct {
	name  string
	edit  func(*Summary)
	key   string
	op    string
	value float64
	// why is in the reason of a check that fails for want of exercise;
	// "" when the check is evaluated (pass says how).
	why  string
	pass bool
}

// unexercisedCases are TestUnexercisedChecksFail's.
var unexercisedCases = []unexercisedCase{
	{name: "tasks exercised: leftover read", key: "tasks.leftover", op: "==", value: 1, pass: true},
	{name: "no task: leftover == 0 fails", edit: func(s *Summary) { s.Tasks = Tasks{} },
		key: "tasks.leftover", op: "==", why: "no task was created in this run"},
	{name: "no task: created == 0 is evaluated", edit: func(s *Summary) { s.Tasks = Tasks{} },
		key: "tasks.created", op: "==", pass: true},
	{name: "no input: rounds fails", edit: func(s *Summary) { s.MRTR = MRTR{} },
		key: "mrtr.rounds", op: ">=", why: "no call was asked for input"},
	{name: "no input: load_shed is evaluated", edit: func(s *Summary) { s.MRTR = MRTR{} },
		key: "mrtr.load_shed", op: "==", pass: true},
	{name: "2025 input: elicitation read", edit: func(s *Summary) { s.MRTR = MRTR{Elicitation: 10} },
		key: "mrtr.elicitation", op: "==", value: 10, pass: true},
	{name: "2025 input: think read", edit: func(s *Summary) { s.MRTR = MRTR{Elicitation: 10} },
		key: "mrtr.think_ms.count", op: "==", pass: true},
	{name: "no cut: orphaned fails", edit: func(s *Summary) { setVerdict(s, AreaCancellation, StatusNotExercised) },
		key: "cancellation.orphaned", op: "==", why: "no call was cancelled or disconnected"},
	{name: "no cut: cancels is evaluated", edit: func(s *Summary) { setVerdict(s, AreaCancellation, StatusNotExercised) },
		key: "cancellation.cancels", op: "==", value: 5, pass: true},
	{name: "no progress asked: violations fail", edit: func(s *Summary) { setVerdict(s, AreaProgress, StatusNotExercised) },
		key: "progress.violations.total", op: "==", why: "no call asked for progress"},
	{name: "no progress asked: unknown tokens evaluated", edit: func(s *Summary) { setVerdict(s, AreaProgress, StatusNotExercised) },
		key: "progress.violations.unknown_token", op: "==", pass: true},
	{name: "progress asked: violations read", key: "progress.violations.total", op: "==", pass: true},
	{name: "no gateway section", edit: func(s *Summary) { s.Gateway = nil; s.Verdicts = s.Verdicts[:2] },
		key: "gateway.duplicate_executions", op: "==", why: "no gateway section"},
	{name: "no gateway section: even its counts", edit: func(s *Summary) { s.Gateway = nil; s.Verdicts = s.Verdicts[:2] },
		key: "gateway.calls", op: "==", why: "no gateway section"},
	{name: "gateway not exercised: lost cancels fail", edit: func(s *Summary) { setVerdict(s, AreaGateway, StatusNotExercised) },
		key: "gateway.lost_cancels", op: "==", why: "no target recorded any of our calls"},
	{name: "gateway not exercised: not_seen evaluated", edit: func(s *Summary) { setVerdict(s, AreaGateway, StatusNotExercised) },
		key: "gateway.not_seen", op: "==", pass: true},
	{name: "no limits section", edit: func(s *Summary) { s.Limits = nil },
		key: "limits.rate", op: ">", why: "no limits section"},
	{name: "no log probe", edit: func(s *Summary) { s.Cancellation.Log = nil },
		key: "cancellation.log.orphaned", op: "==", why: "no cancellation.log section"},
	{name: "log probe: orphaned read", key: "cancellation.log.orphaned", op: "==", pass: true},
	{name: "no process probe: nested keys fail", edit: func(s *Summary) { s.Cancellation.ProcessCPU = nil },
		key: "cancellation.process_cpu.cpu_bound.wait_s", op: "<", value: 1, why: "no cancellation.process_cpu section"},
	{name: "process probe: a nested key read", key: "cancellation.process_cpu.cpu_bound.wait_s", op: "<", value: 1, pass: true},
	{name: "no cut: the stdio servers' shutdown still read", edit: func(s *Summary) {
		setVerdict(s, AreaCancellation, StatusNotExercised)
		s.Cancellation.ServerProcesses = &ServerProcesses{}
	}, key: "cancellation.server_processes.killed", op: "==", pass: true},
	{name: "no cut: the process's CPU still read", edit: func(s *Summary) { setVerdict(s, AreaCancellation, StatusNotExercised) },
		key: "cancellation.process_cpu.per_call_s", op: "<", value: 1, pass: true},
	{name: "no cut: windows fail", edit: func(s *Summary) { setVerdict(s, AreaCancellation, StatusNotExercised) },
		key: "cancellation.windows.above", op: "==", why: "no call was cancelled or disconnected"},
	{name: "a null: no limit found", key: "limits.rate", op: "<", value: 1000, why: "limits.rate is null"},
	{name: "a statistic of no values", key: "mrtr.server_ms.p50", op: "<", value: 1000, why: "mrtr.server_ms has no values"},
	{name: "a statistic with values", edit: func(s *Summary) { s.MRTR.ServerMs = Latency{Count: 3, P50: 20} },
		key: "mrtr.server_ms.p50", op: "<", value: 1000, pass: true},
	{name: "2025 input thought over, never answered: think read", edit: func(s *Summary) { s.MRTR = MRTR{ThinkMs: Latency{Count: 2, P50: 900}} },
		key: "mrtr.think_ms.p50", op: ">", value: 500, pass: true},
	{name: "no input at all: advice for both eras", edit: func(s *Summary) { s.MRTR = MRTR{} },
		key: "mrtr.think_ms.p50", op: ">", why: "check mrtr.input_required (2026) or mrtr.elicitation (2025)"},
	{name: "a fault kind that did not occur is still 0", key: "faults.cancel.injected", op: "==", pass: true},
	{name: "a count that is 0 is still 0", key: "calls.dropped", op: "==", pass: true},
}

func TestUnexercisedChecksFail(t *testing.T) {
	for _, tt := range unexercisedCases {
		t.Run(tt.name, func(t *testing.T) {
			s := exercised()
			if tt.edit != nil {
				tt.edit(s)
			}
			s.Evaluate([]Check{{Key: tt.key, Op: tt.op, Value: tt.value}}, false)
			r := s.Checks[0]
			if tt.why != "" {
				if r.Pass || !strings.Contains(r.Reason, tt.why) || !strings.Contains(r.Reason, tt.key) {
					t.Errorf("%s: pass %v, reason %q; want a failure naming %q and the key", tt.key, r.Pass, r.Reason, tt.why)
				}
				return
			}
			if r.Pass != tt.pass || r.Reason != "" {
				t.Errorf("%s: pass %v, value %v, reason %q; want pass %v, no reason", tt.key, r.Pass, r.Value, r.Reason, tt.pass)
			}
		})
	}
}

// TestOptionalSectionsComplete: every section the summary can leave out (a
// pointer to a struct) is in optionalSections, so a check on it fails
// with a reason rather than read 0.
func TestOptionalSectionsComplete(t *testing.T) {
	want := map[string]bool{}
	var visit func(reflect.Type, string)
	visit = func(typ reflect.Type, prefix string) {
		for i := 0; i < typ.NumField(); i++ {
			f := typ.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "" || name == "-" {
				continue
			}
			key := prefix + name
			ft := f.Type
			if ft.Kind() == reflect.Pointer && ft.Elem().Kind() == reflect.Struct {
				want[key] = true
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct && ft.PkgPath() == typ.PkgPath() {
				visit(ft, key+".")
			}
		}
	}
	visit(reflect.TypeFor[Summary](), "")
	have := map[string]bool{}
	for _, o := range optionalSections {
		have[o.key] = true
	}
	for k := range want {
		if !have[k] {
			t.Errorf("section %q can be absent but is not in optionalSections", k)
		}
	}
	for k := range have {
		if !want[k] {
			t.Errorf("optionalSections names %q, which cannot be absent", k)
		}
	}
}

// TestDescribed: a limits step's summary (no faults, no gateway) keeps
// the checks it can judge and leaves out, with the reason, those on what
// it never had.
func TestDescribed(t *testing.T) {
	s := exercised()
	setVerdict(s, AreaCancellation, StatusNotExercised)
	s.Gateway = nil
	checks := []Check{{Key: "calls.throttled", Op: "==", Value: 0}, {Key: "cancellation.leftover_calls", Op: "==", Value: 0},
		{Hist: "call", Percentile: 99, Op: "<", Value: 300}, {Key: "gateway.lost_cancels", Op: "==", Value: 0}}
	kept, left := s.Described(checks)
	if len(kept) != 2 || kept[0].Key != "calls.throttled" || kept[1].Hist != "call" {
		t.Errorf("kept %+v; want calls.throttled and p99(call)", kept)
	}
	if len(left) != 2 || !strings.Contains(left[0], "cancellation.leftover_calls == 0: no call was cancelled") ||
		!strings.Contains(left[1], "no gateway section") {
		t.Errorf("left %q; want the cancellation and gateway checks, with reasons", left)
	}
}

// TestNeverHadAtValidation: a check on a gateway's or a log probe's keys
// in a scenario without that section is an error before any load, naming
// its line; with the section it is valid.
func TestNeverHadAtValidation(t *testing.T) {
	for _, tc := range []struct {
		name, yaml, check string
		want              string // "" for valid
	}{
		{"gateway check, no gateway", "", "gateway.lost_cancels == 0", "the scenario has no gateway section"},
		{"log check, no log probe", "", "cancellation.log.orphaned == 0", "the scenario has no log probe"},
		{"log check, a log probe", "orphans: {probes: [{log: {file: calls.log, done: 'call (?P<id>\\d+) done'}}]}\n",
			"cancellation.log.orphaned == 0", ""},
		{"other checks", "", "cancellation.orphaned == 0", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := "name: t\ntarget: {builtin: {}}\nload: {rate: 1/1s, duration: 1s}\ncalls: [{tool: echo}]\n" + tc.yaml +
				"checks:\n  - " + tc.check + "\n"
			sc, err := scenarios.Parse("t.yaml", []byte(body))
			if err != nil {
				t.Fatal(err)
			}
			_, errs := ScenarioChecks(sc, Names{})
			switch {
			case tc.want == "" && len(errs) > 0:
				t.Errorf("errors %v, want none", errs)
			case tc.want != "" && (len(errs) != 1 || !strings.Contains(errs[0].Error(), tc.want) || !strings.HasPrefix(errs[0].Error(), "t.yaml:")):
				t.Errorf("errors %v, want one at t.yaml:LINE:COL saying %q", errs, tc.want)
			}
		})
	}
}
