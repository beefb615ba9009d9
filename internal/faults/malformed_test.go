package faults_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcpchaos/mcpchaos/client"
	"github.com/mcpchaos/mcpchaos/internal/faults"
	"github.com/mcpchaos/mcpchaos/report"
	"github.com/mcpchaos/mcpchaos/results"
)

// malformedCase is one run of TestMalformed: a malformed fault's mode on a
// transport and protocol.
type malformedCase struct {
	name, transport, protocol, fault string
	// knownGap: the built-in target is known to answer this one
	// wrongly, so the run must report every such request as unexpected.
	knownGap bool
}

// malformedCases are the cases of TestMalformed.
var malformedCases = []malformedCase{
	{name: "json", transport: "http", protocol: "auto", fault: "mode: json"},
	{name: "params", transport: "http", protocol: "auto", fault: "mode: params"},
	{name: "oversize", transport: "http", protocol: "auto", fault: "mode: oversize, size: 5MiB"},
	{name: "missing_meta", transport: "http", protocol: "auto", fault: "mode: missing_meta"},
	{name: "missing_meta/2025", transport: "http", protocol: "2025-11-25", fault: "mode: missing_meta"},
	{name: "params/stdio", transport: "stdio", protocol: "auto", fault: "mode: params"},
	// The SDK alone (v1.8.0) would serve a stdio request without
	// _meta.protocolVersion as a legacy one, and would end the session
	// on a line that is not JSON; the built-in target answers both the
	// way a correct server does (-32602; -32700 with a null id, which
	// the client matches to the oldest unanswered broken request).
	{name: "missing_meta/stdio", transport: "stdio", protocol: "auto", fault: "mode: missing_meta"},
	{name: "json/stdio", transport: "stdio", protocol: "auto", fault: "mode: json"},
	// stdio has no size rule: a big request answered is fine.
	{name: "oversize/stdio", transport: "stdio", protocol: "auto", fault: "mode: oversize, size: 2MiB"},
}

// TestMalformed: the built-in target answers every kind of broken request
// the way a correct server does (faults.malformed.unexpected == 0), stays
// up, and answers the well-formed calls around them. On a 2025 era a
// request without the 2026 _meta is simply a well-formed legacy request.
func TestMalformed(t *testing.T) {
	t.Parallel()
	for _, tc := range malformedCases {
		// The timeouts are a minute: at load ~30 the race-built stdio
		// target, reading its 2 MiB requests one after another on its one
		// pipe, left one unanswered for the 20 s idle timeout it had.
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			o := runYAML(t, fmt.Sprintf(`
name: malformed
seed: 29
protocol: %s
target: {builtin: {transport: %s}}
load: {rate: 20/1s, duration: 1s}
timeouts: {idle: 60s, max: 120s}
calls:
  - {tool: echo, arguments: {text: hello}}
faults:
  - {kind: malformed, probability: 0.3, %s}
orphans: {grace: 200ms}
`, tc.protocol, tc.transport, tc.fault), opts{})
			inj := o.injected("malformed")
			checkMalformedAnswers(t, tc, o, inj)
			checkMalformedServerUp(t, tc, o)
			t.Logf("malformed answers: %s", answers(inj))
			if t.Failed() {
				o.dump(t)
			}
		})
	}
}

// checkMalformedAnswers checks the count of broken requests and that each
// was answered as the case expects, with the case's mode (on 2025-11-25, a
// request without the 2026 _meta answered ok).
func checkMalformedAnswers(t *testing.T, tc malformedCase, o *outcome, inj []recFault) {
	fs := o.fault("malformed")
	if fs.Injected == 0 || fs.Injected != len(inj) {
		t.Errorf("faults.malformed.injected = %d, records carry %d; want > 0, equal", fs.Injected, len(inj))
	}
	wantUnexpected, wantDetail := 0, "expected answer: "
	if tc.knownGap {
		wantUnexpected, wantDetail = fs.Injected, "unexpected answer: "
	}
	if fs.Unexpected != wantUnexpected {
		t.Errorf("faults.malformed.unexpected = %d, want %d against the built-in target", fs.Unexpected, wantUnexpected)
	}
	mode := strings.Fields(strings.TrimPrefix(tc.fault, "mode: "))[0]
	mode = strings.TrimSuffix(mode, ",")
	for _, rf := range inj {
		r, f := rf.rec, rf.f
		if f.Mode != mode || !strings.HasPrefix(f.Detail, wantDetail) {
			t.Errorf("seq %d: mode %q, detail %q (outcome %s, status %d, code %v); want %s, %q",
				r.Seq, f.Mode, f.Detail, r.Outcome, r.Status, r.Code, mode, wantDetail)
		}
	}
	if tc.protocol == "2025-11-25" {
		// A legacy request has no 2026 _meta to miss: it is a
		// good request, answered ok.
		for _, rf := range inj {
			if rf.rec.Outcome != results.OK {
				t.Errorf("seq %d: outcome %q for a legacy request without 2026 _meta, want ok", rf.rec.Seq, rf.rec.Outcome)
			}
		}
	}
}

// checkMalformedServerUp checks that the well-formed calls around the broken
// ones succeeded and that the server stayed up and within the protocol.
func checkMalformedServerUp(t *testing.T, tc malformedCase, o *outcome) {
	// Every call that was not broken succeeded (unless the server
	// fell over).
	for _, r := range o.Recs {
		if !tc.knownGap && len(r.Faults) == 0 && r.Outcome != results.OK {
			t.Errorf("seq %d: a well-formed call ended %q (%s)", r.Seq, r.Outcome, r.Error)
		}
	}
	// The server stays up: a well-formed call answered after the
	// first broken request was on the wire. On a busy machine,
	// building and sending a 5 MiB request under -race can take
	// longer than the 1 s load, so the run may hold no later call:
	// then there is nothing to judge (and every well-formed call
	// was ok, above).
	first := o.firstFault("malformed")
	later := false
	for _, r := range o.Recs {
		later = later || (len(r.Faults) == 0 && r.Scheduled.After(first))
	}
	if n := o.okAnsweredAfter(first); n == 0 && later {
		t.Errorf("no ok call answered after the first malformed request was sent")
	} else if !later {
		t.Logf("no well-formed call was scheduled after the first broken request was sent")
	}
	if v := o.Sum.Protocol.Violations; v.Total != 0 {
		t.Errorf("protocol.violations = %+v, want none", v)
	}
	if v := o.verdict(report.AreaCancellation); v.Status != report.StatusNotExercised && v.Status != report.StatusPass {
		t.Errorf("cancellation verdict %q (%s)", v.Status, v.Evidence)
	}
}

// answers summarises the answers to broken requests, for the log.
func answers(inj []recFault) string {
	m := map[string]int{}
	for _, rf := range inj {
		m[rf.rec.Outcome+" "+strings.TrimPrefix(strings.TrimPrefix(rf.f.Detail, "expected answer: "), "unexpected answer: ")]++
	}
	return fmt.Sprint(m)
}

// TestMalformedExpected: which answers count as a correct server's.
func TestMalformedExpected(t *testing.T) {
	t.Parallel()
	const none = 0
	for _, tc := range []struct {
		mode     string
		era      client.Era
		status   int
		code     int64
		answered bool // a result or an error arrived (always so with a status)
		want     bool
	}{
		{"json", client.Era20260728, 400, none, true, true},
		{"json", client.Era20260728, 0, client.CodeParseError, true, true},
		{"json", client.Era20260728, 200, client.CodeInvalidRequest, true, true},
		{"json", client.Era20260728, 200, none, true, false},
		{"json", client.Era20260728, 0, none, false, false}, // stdio: no answer
		{"json", client.Era20260728, 500, none, true, false},
		{"params", client.Era20260728, 200, client.CodeInvalidParams, true, true},
		{"params", client.Era20260728, 400, client.CodeHeaderMismatch, true, true},
		{"params", client.Era20260728, 200, client.CodeInternalError, true, false},
		{"params", client.Era20260728, 200, none, true, false},
		{"oversize", client.Era20260728, 413, none, true, true},
		{"oversize", client.Era20260728, 0, client.CodeInvalidRequest, true, true},
		{"oversize", client.Era20260728, 200, none, true, false},
		{"oversize", client.Era20260728, 0, none, true, true},   // stdio: a result is fine
		{"oversize", client.Era20260728, 0, none, false, false}, // stdio: no answer at all
		{"missing_meta", client.Era20260728, 400, client.CodeInvalidParams, true, true},
		{"missing_meta", client.Era20260728, 0, client.CodeInvalidParams, true, true},
		{"missing_meta", client.Era20260728, 200, client.CodeInvalidParams, true, false},
		{"missing_meta", client.Era20260728, 200, none, true, false},
		{"missing_meta", client.Era20260728, 0, none, false, false},
		{"missing_meta", client.Era20260728, 0, none, true, false}, // stdio: answered as if legacy
		{"missing_meta", client.Era20251125, 200, none, true, true},
		{"missing_meta", client.Era20251125, 0, none, true, true},
		{"missing_meta", client.Era20251125, 400, none, true, false},
	} {
		f := newFault(t, "{kind: malformed, mode: "+tc.mode+"}").(faults.Rewriter)
		if got := f.Expected(faults.Answer{Era: tc.era, Status: tc.status, Code: tc.code, Answered: tc.answered}); got != tc.want {
			t.Errorf("%s, era %s, status %d, code %d, answered %v: Expected = %v, want %v", tc.mode, tc.era, tc.status, tc.code, tc.answered, got, tc.want)
		}
	}
}

// TestMalformedRewrite: the request is broken the configured way, with the
// oversize default of 8 MiB.
func TestMalformedRewrite(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		mode string
		size string
		want client.Malform
		n    int
	}{
		{"json", "", client.MalformJSON, 8 << 20},
		{"params", "", client.MalformParams, 8 << 20},
		{"oversize", "", client.MalformOversize, 8 << 20},
		{"oversize", ", size: 5MiB", client.MalformOversize, 5 << 20},
		{"missing_meta", "", client.MalformMissingMeta, 8 << 20},
	} {
		f := newFault(t, "{kind: malformed, mode: "+tc.mode+tc.size+"}")
		var req client.CallRequest
		mode := f.(faults.Rewriter).Rewrite(&req)
		if mode != tc.mode || req.Malform != tc.want || req.MalformSize != tc.n || req.Malform.String() != tc.mode {
			t.Errorf("%s: request malformed %v (%s), size %d; want %v, %d", tc.mode, req.Malform, req.Malform, req.MalformSize, tc.want, tc.n)
		}
	}
}
