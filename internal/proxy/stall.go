package proxy

import (
	"time"

	"github.com/mcpchaos/mcpchaos/internal/faultkinds"
	"github.com/mcpchaos/mcpchaos/internal/scenarios"
)

// progressStall forwards the call's progress until `after` (from the
// request; default at once), then swallows everything the upstream sends
// for it, the final response included: the call stays open, silent,
// until the client cancels or the hold ends.
//
// A correct client has an idle timeout: when nothing arrives for that
// long, it cancels. A client that waits only for progress to resume is
// reported as never_cancelled.
type progressStall struct{}

var progressStallKind = kind{name: faultkinds.ProgressStall, timed: true,
	build: func(*scenarios.Reader) effect { return progressStall{} }}

func (progressStall) apply(p *plan, after time.Duration) {
	p.stall = true
	p.stallAfter = after
}
