package testutil

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// CheckPrintable fails the test when out (named what in the message) is
// not UTF-8 or holds a control character — C0, DEL or C1 — other than a
// line feed or a tab: text that would act on a terminal.
func CheckPrintable(t testing.TB, what, out string) {
	t.Helper()
	if !utf8.ValidString(out) {
		t.Errorf("%s is not UTF-8:\n%q", what, out)
		return
	}
	for _, r := range out {
		if r != '\n' && r != '\t' && (r < 0x20 || r >= 0x7f && r <= 0x9f) {
			t.Errorf("%s holds %U:\n%q", what, r, out)
			return
		}
	}
}

// CheckOneResult fails the test unless the text summary out has exactly
// one line that starts with "Result", and that line says FAIL: nothing a
// server or a results file said forged a line of its own.
func CheckOneResult(t testing.TB, out string) {
	t.Helper()
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "Result") {
			lines = append(lines, l)
		}
	}
	if len(lines) != 1 || !strings.Contains(lines[0], "FAIL") {
		t.Errorf("Result lines %q, want one that says FAIL:\n%s", lines, out)
	}
}
