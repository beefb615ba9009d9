package export

import (
	"encoding/xml"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/mcpchaos/mcpchaos/report"
)

// JUnit XML: one test suite per run, one test case per check (class name
// "checks") and one per verdict area (class name "verdicts"). A failed
// check is a failure carrying its value (or why it has none); a violation
// is a failure carrying the verdict's evidence when it fails the run
// (fail_on_violation), else a passing case whose output says so; a
// verdict "not exercised" or "not_observable" is skipped. Every other
// verdict passes, with its evidence as output.

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Time       string          `xml:"time,attr"`
	Timestamp  string          `xml:"timestamp,attr,omitempty"`
	Properties []junitProperty `xml:"properties>property"`
	Cases      []junitCase     `xml:"testcase"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitMessage `xml:"failure,omitempty"`
	Skipped   *junitMessage `xml:"skipped,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Text    string `xml:",chardata"`
}

// JUnit writes the summary as JUnit XML.
func JUnit(w io.Writer, s *report.Summary) error {
	suite := junitSuite{Name: "mcpchaos " + s.Scenario, Time: fmtSeconds(s.DurationS)}
	if !s.Started.IsZero() {
		suite.Timestamp = s.Started.UTC().Format("2006-01-02T15:04:05")
	}
	for _, p := range [][2]string{
		{"scenario", s.Scenario}, {"seed", strconv.FormatInt(s.Seed, 10)}, {"era", s.Era},
		{"transport", s.Transport}, {"target", s.Target}, {"server", s.Server},
		{"calls", strconv.Itoa(s.Calls.Total)}, {"interrupted", strconv.FormatBool(s.Interrupted)},
		{"fail_on_violation", strconv.FormatBool(s.FailOnViolation)}, {"pass", strconv.FormatBool(s.Pass)},
	} {
		suite.Properties = append(suite.Properties, junitProperty{Name: p[0], Value: p[1]})
	}
	for _, c := range s.Checks {
		tc := junitCase{Name: c.Check, Classname: "checks", Time: "0"}
		if !c.Pass {
			msg := "value " + strconv.FormatFloat(c.Value, 'g', -1, 64)
			if c.Reason != "" {
				msg = c.Reason
			}
			text := fmt.Sprintf("check %q failed: %s", c.Check, msg)
			if c.Line > 0 {
				text += fmt.Sprintf(" (scenario line %d)", c.Line)
			}
			tc.Failure = &junitMessage{Message: msg, Type: "check", Text: text}
		} else {
			tc.SystemOut = "value " + strconv.FormatFloat(c.Value, 'g', -1, 64)
		}
		suite.add(tc)
	}
	for _, v := range s.Verdicts {
		tc := junitCase{Name: v.Area, Classname: "verdicts", Time: "0"}
		text := v.Status + ": " + v.Evidence
		switch v.Status {
		case report.StatusViolation:
			if s.FailOnViolation {
				tc.Failure = &junitMessage{Message: v.Status, Type: "verdict", Text: text}
			} else {
				tc.SystemOut = text + " (not failing the run: fail_on_violation is off)"
			}
		case report.StatusNotExercised, report.StatusNotObservable:
			tc.Skipped = &junitMessage{Message: v.Status, Text: v.Evidence}
		default:
			tc.SystemOut = text
		}
		suite.add(tc)
	}
	out := junitSuites{Name: "mcpchaos", Tests: suite.Tests, Failures: suite.Failures, Skipped: suite.Skipped,
		Time: suite.Time, Suites: []junitSuite{suite}}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return fmt.Errorf("write junit: %w", err)
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(out); err != nil {
		return fmt.Errorf("write junit: %w", err)
	}
	if _, err := io.WriteString(w, "\n"); err != nil {
		return fmt.Errorf("write junit: %w", err)
	}
	return nil
}

func (s *junitSuite) add(tc junitCase) {
	s.Tests++
	switch {
	case tc.Failure != nil:
		s.Failures++
	case tc.Skipped != nil:
		s.Skipped++
	}
	s.Cases = append(s.Cases, tc)
}

// fmtSeconds formats seconds for a JUnit time attribute.
func fmtSeconds(s float64) string {
	return strings.TrimSuffix(strings.TrimRight(strconv.FormatFloat(s, 'f', 3, 64), "0"), ".")
}
