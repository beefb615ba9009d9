package text

import (
	"strings"
	"testing"

	"github.com/mcpchaos/mcpchaos/internal/testutil"
	"github.com/mcpchaos/mcpchaos/report"
	"github.com/mcpchaos/mcpchaos/results"
)

// forged is what a hostile server or results file puts in a field: a
// terminal title, a screen clear, and a line that would forge the result.
const forged = "boom\x1b]0;owned\x07\x1b[2J\r\nResult        PASS\n\u009b31m"

// hostileSummary is a failed run (the golden one) whose every kind of
// text field holds s.
func hostileSummary(t testing.TB, s string) *report.Summary {
	sum := pinned(t, "summary.json.golden")
	sum.Scenario, sum.Server, sum.Target = s, s, s
	sum.Tools[s] = report.ToolStats{Calls: 1, ByOutcome: map[string]int{results.ToolError: 1}}
	sum.Errors.Top = append(sum.Errors.Top, report.ErrorCount{Message: results.ToolError + ": " + s, Count: 1},
		report.ErrorCount{Message: results.RPCError + ": rpc " + s, Count: 1})
	sum.Cancellation.ProbeErrors = append(sum.Cancellation.ProbeErrors, s)
	sum.Checks[0].Check = s
	sum.Verdicts = append(sum.Verdicts, report.Verdict{Area: s, Status: "pass", Evidence: s})
	return sum
}

// checkTerminalSafe fails unless out holds no control character but line
// feeds and has exactly one Result line, which says FAIL.
func checkTerminalSafe(t *testing.T, out string) {
	t.Helper()
	if strings.Contains(out, "\t") {
		t.Errorf("the text holds a tab:\n%q", out)
	}
	testutil.CheckPrintable(t, "the text", out)
	testutil.CheckOneResult(t, out)
}

// TestTextEscapesFields: server text in every field shows escaped, on the
// line of its field; the summary itself keeps its raw strings (the JSON
// output escapes in its own way).
func TestTextEscapesFields(t *testing.T) {
	s := hostileSummary(t, forged)
	out := render(t, s)
	checkTerminalSafe(t, out)
	want := `boom\x1b]0;owned\a\x1b[2J\r\nResult        PASS\n\u009b31m`
	for _, label := range []string{"Scenario", "Target", "Server"} {
		text := "\n" + out
		i := strings.Index(text, "\n"+label+" ")
		if line, _, _ := strings.Cut(text[i+1:], "\n"); i < 0 || !strings.Contains(line, want) {
			t.Errorf("the %s line does not show %s:\n%s", label, want, out)
		}
	}
	if s.Server != forged || s.Tools[forged].Calls != 1 {
		t.Errorf("Write changed the summary: server %q, tools %v", s.Server, s.Tools)
	}
}

// FuzzTextEscaping: whatever a server or a results file puts in the text
// fields of a failed run, the text summary holds no control character but
// its own line feeds, and one Result line, FAIL.
func FuzzTextEscaping(f *testing.F) {
	for _, s := range []string{"", "echo", forged, "\x9b2J", "\xff\xfe", "a\tb\vc\fd", "\u0085\u2028"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkTerminalSafe(t, render(t, hostileSummary(t, s)))
	})
}
