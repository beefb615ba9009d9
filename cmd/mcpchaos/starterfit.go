package main

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/mcpchaos/mcpchaos/client"
	"github.com/mcpchaos/mcpchaos/internal/scenarios"
	"github.com/mcpchaos/mcpchaos/internal/toolschema"
)

// Keeping `mcpchaos init`'s file within what `mcpchaos validate` accepts,
// whatever the server lists: a tool whose entry validate would refuse (an
// empty name), or that would not fit (a name of megabytes, arguments past
// toolschema's bounds), is left out with a note; tools past the file's
// bounds (scenarios.MaxFileSize, scenarios.MaxTokens) are left out
// together, the first ones kept. Each left-out tool is a comment in the
// file and a note on stderr.

// Bounds of one tool's entry in the starter file.
const (
	maxStarterName  = 1024     // bytes of a tool name
	maxStarterEntry = 64 << 10 // bytes of one entry, comments included
)

// The room the rest of the file (target, load, faults, orphans, checks,
// these notes) is given within the file's bounds.
const (
	starterReserveBytes  = 64 << 10
	starterReserveTokens = 4000
)

// maxSkipNames is how many left-out tools a note names one by one.
const maxSkipNames = 20

// toolEntry is one tool's calls entry, made once.
type toolEntry struct {
	tool  client.Tool
	lines []string
	note  string
}

// skipped is a tool left out of the file, and why.
type skipped struct {
	name, why string
}

// maxStarterServerName bounds the server's name and version as the file
// names them (in a comment and in name:).
const maxStarterServerName = 256

// fit makes every tool's entry, leaves out those that cannot be written
// and those past the file's bounds, and renders the rest.
func (s starter) fit() (starterOut, error) {
	s.server.Name, s.server.Version = serverLabel(s.server.Name), serverLabel(s.server.Version)
	var kept []toolEntry
	var left []skipped
	bytes, tokens := 0, 0
	full := false
	for _, t := range s.tools {
		if full {
			left = append(left, skipped{t.Name, "past the file's bounds"})
			continue
		}
		if why := badToolName(t.Name); why != "" {
			left = append(left, skipped{t.Name, why})
			continue
		}
		lines, note := s.call(t)
		n, k := entryCost(lines)
		if n > maxStarterEntry {
			left = append(left, skipped{t.Name, fmt.Sprintf("its entry would take %d bytes, more than %d", n, maxStarterEntry)})
			continue
		}
		if bytes+n > scenarios.MaxFileSize-starterReserveBytes || tokens+k > scenarios.MaxTokens-starterReserveTokens {
			full = true
			left = append(left, skipped{t.Name, "past the file's bounds"})
			continue
		}
		bytes, tokens = bytes+n, tokens+k
		kept = append(kept, toolEntry{tool: t, lines: lines, note: note})
	}
	s.fitted, s.entries, s.left = true, kept, left
	for range maxRefits {
		out, err := s.render()
		if err != nil {
			return out, err
		}
		err = scenarios.CheckWritten("starter.yaml", out.yaml)
		if err == nil {
			return out, nil
		}
		if !s.refuse(out.yaml, err) {
			return out, fmt.Errorf("the starter scenario would not validate (a bug of mcpchaos init; please report it): %w", err)
		}
	}
	return starterOut{}, fmt.Errorf("the starter scenario would not validate after %d tries", maxRefits)
}

// maxRefits is how many times fit renders the file and leaves out the
// tools validate refuses.
const maxRefits = 3

// refuse leaves out the tools whose entries in data err (validate's
// errors) points at, and reports whether there were any; an error outside
// every entry is not the tools' fault.
func (s *starter) refuse(data []byte, err error) bool {
	var errs scenarios.Errors
	if !errors.As(err, &errs) {
		return false
	}
	starts := entryLines(data, s.entries)
	if slices.Contains(starts, -1) {
		return false
	}
	bad := map[int]string{} // entry index → validate's message
	for _, e := range errs {
		i := sort.SearchInts(starts, e.Pos.Line+1) - 1 // the last entry starting at or before the line
		if !e.Pos.IsValid() || i < 0 || e.Pos.Line >= starts[i]+len(s.entries[i].lines) {
			return false
		}
		if _, seen := bad[i]; !seen {
			bad[i] = e.Msg
		}
	}
	var kept []toolEntry
	for i, e := range s.entries {
		if msg, ok := bad[i]; ok {
			s.left = append(s.left, skipped{e.tool.Name, "validate refuses its entry: " + oneLineText(msg)})
			continue
		}
		kept = append(kept, e)
	}
	s.entries = kept
	return true
}

// entryLines returns the line (from 1) at which each entry starts in data,
// in order.
func entryLines(data []byte, entries []toolEntry) []int {
	starts := make([]int, len(entries))
	lines := strings.Split(string(data), "\n")
	at := 0
	for i, e := range entries {
		starts[i] = -1
		for ; at < len(lines); at++ {
			if strings.TrimPrefix(strings.TrimPrefix(lines[at], "  # "), "  ") == e.lines[0] {
				starts[i] = at + 1
				at++
				break
			}
		}
	}
	return starts
}

// serverLabel is the server's name or version as the file writes it, in a
// comment as well as in name:: on one line (a line break would end the
// comment and write YAML of the server's own), at most
// maxStarterServerName bytes.
func serverLabel(s string) string {
	s = oneLineText(s)
	if len(s) > maxStarterServerName {
		cut := maxStarterServerName
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut]
	}
	return s
}

// badToolName says why a tool name cannot be written, or "".
func badToolName(name string) string {
	switch {
	case strings.TrimSpace(name) == "":
		return "an empty name (validate refuses calls[].tool \"\")"
	case len(name) > maxStarterName:
		return fmt.Sprintf("a name of %d bytes, more than %d", len(name), maxStarterName)
	}
	return ""
}

// entryCost is what an entry adds to the file: bytes (indented, with
// newlines) and YAML tokens (as validate counts them).
func entryCost(lines []string) (bytes, tokens int) {
	for _, l := range lines {
		bytes += len(l) + 3
		tokens += scenarios.TokenEstimate([]byte(l)) + 1
	}
	return bytes, tokens
}

// skippedComments are the comment lines and the notes for the tools left
// out: the first maxSkipNames left out for their own sake one by one, the
// others in one line; the tools past the file's bounds in one line.
func skippedComments(left []skipped) (comments, notes []string) {
	var past, more []string
	for _, l := range left {
		switch {
		case l.why == "past the file's bounds":
			past = append(past, l.name)
		case len(notes) < maxSkipNames:
			name := shortName(l.name)
			comments = append(comments, fmt.Sprintf("left out: tool %s, %s", name, l.why))
			notes = append(notes, fmt.Sprintf("tool %s left out of the scenario: %s", name, l.why))
		default:
			more = append(more, l.name)
		}
	}
	if len(more) > 0 {
		why := fmt.Sprintf("%d more tools left out for their names or entries, as above: %s", len(more), someNames(more))
		comments, notes = append(comments, why), append(notes, why)
	}
	if len(past) > 0 {
		why := fmt.Sprintf("%d tools left out: the file would pass the bounds validate holds a scenario to (%d bytes, %d YAML tokens); "+
			"add them by hand in place of others: %s", len(past), scenarios.MaxFileSize, scenarios.MaxTokens, someNames(past))
		comments, notes = append(comments, why), append(notes, why)
	}
	return comments, notes
}

// someNames lists the first maxSkipNames names, and how many more.
func someNames(names []string) string {
	list := make([]string, 0, maxSkipNames)
	for _, n := range names[:min(len(names), maxSkipNames)] {
		list = append(list, shortName(n))
	}
	out := strings.Join(list, ", ")
	if len(names) > maxSkipNames {
		out += fmt.Sprintf(" and %d more", len(names)-maxSkipNames)
	}
	return out
}

// shortName quotes a tool name for a comment or a note: on one line, at
// most 64 bytes of it.
func shortName(name string) string {
	const most = 64
	if len(name) > most {
		cut := most
		for cut > 0 && !utf8.RuneStart(name[cut]) {
			cut--
		}
		return fmt.Sprintf("%q...", oneLineText(name[:cut]))
	}
	return fmt.Sprintf("%q", oneLineText(name))
}

// argsNote is the note for arguments toolschema would not make.
func argsNote(tool string, err error) (string, bool) {
	if !errors.Is(err, toolschema.ErrTooLarge) {
		return "", false
	}
	return fmt.Sprintf("tool %q: %v", tool, err), true
}
