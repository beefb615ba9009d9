package proxy

import (
	"time"

	"github.com/mcpchaos/mcpchaos/internal/faultkinds"
	"github.com/mcpchaos/mcpchaos/internal/scenarios"
)

// dropResponse forwards the call and its progress but never delivers the
// final response: the stream stays open, silent once the upstream is
// done, until the client cancels or the hold ends.
//
// A correct client does not wait forever: its idle timeout (nothing
// arrived for a while) or its maximum timeout ends the call with a cancel.
type dropResponse struct{}

var dropResponseKind = kind{name: faultkinds.DropResponse,
	build: func(*scenarios.Reader) effect { return dropResponse{} }}

func (dropResponse) apply(p *plan, _ time.Duration) { p.drop = true }
