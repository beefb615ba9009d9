package engine

import (
	"fmt"
	"strings"
)

// The truth's read errors, summarised. A target that never opened its
// port, or whose process ended (a gateway that runs a child per request
// kills each after its answer), fails every read the same way: one line
// per target and read would bury the verdict. So each target keeps its
// first error, and the summary says, in one line each, which targets were
// never read and which failed after they had answered.

// noteFailed keeps a target's first read error (g.readMu held).
func (g *gatewayRun) noteFailed(i int, err error) {
	if g.failed == nil {
		g.failed = map[int]string{}
	}
	if _, ok := g.failed[i]; !ok {
		g.failed[i] = err.Error()
	}
}

// truthLines returns the lines that summarise the failed reads, and how
// many targets were never read.
func (g *gatewayRun) truthLines() (lines []string, unread int) {
	var never, later []int
	for i, t := range g.truths {
		switch _, failed := g.failed[i]; {
		case !t.Answered():
			never = append(never, i)
		case failed:
			later = append(later, i)
		}
	}
	if len(never) > 0 {
		lines = append(lines, fmt.Sprintf("the truth of %d of %d targets was never read (is a built-in target serving GET /calls there?): %s; the first error: %s",
			len(never), len(g.truths), g.urls(never), g.firstError(never)))
	}
	switch {
	case len(later) == 1:
		lines = append(lines, g.failed[later[0]])
	case len(later) > 1:
		lines = append(lines, fmt.Sprintf("reading the truth of %d of %d targets failed after they had answered (a target whose process ended took its last records with it): %s; the first error: %s",
			len(later), len(g.truths), g.urls(later), g.firstError(later)))
	}
	return lines, len(never)
}

// urls lists the targets' addresses, the first five of them.
func (g *gatewayRun) urls(idx []int) string {
	var out []string
	for _, i := range idx[:min(len(idx), 5)] {
		out = append(out, g.truths[i].Base())
	}
	s := strings.Join(out, ", ")
	if len(idx) > 5 {
		s += fmt.Sprintf(", and %d more", len(idx)-5)
	}
	return s
}

// firstError is the error of the first of the targets that has one.
func (g *gatewayRun) firstError(idx []int) string {
	for _, i := range idx {
		if e, ok := g.failed[i]; ok {
			return e
		}
	}
	return "none kept"
}
