package engine

import (
	"time"

	"github.com/mcpchaos/mcpchaos/internal/probes"
)

// inflightSeries is the client's calls in flight as the orphan sampler
// reads them (every SampleEvery, 10 a second by default). Its integral,
// the live call-seconds (step rule; a gap of more than a few sampling
// periods is a quiet window, nothing live, and is left out), is summed as
// the samples come, in their order, so it is the very sum a pass over them
// at the end would give. The samples themselves are kept only when a
// counting probe's leaked work needs them (series.LeakedCallSeconds): a
// run without one, such as a soak, does not grow by 32 bytes a sample.
type inflightSeries struct {
	keep   bool          // keep the points (a counting probe reads them)
	gap    time.Duration // the longest step that counts
	points []probes.Point

	last        probes.Point
	seen        bool
	callSeconds float64
}

// add takes the next sample.
func (s *inflightSeries) add(p probes.Point) {
	if s.seen {
		if d := p.T.Sub(s.last.T); d <= s.gap {
			s.callSeconds += s.last.V * d.Seconds()
		}
	}
	s.last, s.seen = p, true
	if s.keep {
		s.points = append(s.points, p)
	}
}
