package engine

import (
	"slices"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/faults"
)

// Automatic quiet windows: the default black-box setup.
//
// A process probe is the only server-side evidence of most servers a user
// did not write (a stdio server we started, or an HTTP server named by
// pid). Its CPU read once after the load misses the leftover of calls cut
// during the load, which has ended by then and was hidden by live calls
// while it ran. So when the process probe is the only probe that reads the
// server and the faults cut calls (cancel, disconnect), the run takes
// quiet windows of its own (windows.go), and the summary says so
// (cancellation.windows.auto). A scenario that sets orphans.windows, or
// adds a counting or log probe, gets none.

// Automatic windows' timing: a window after every autoEvery of load (half
// the load when that is shorter, never under autoMinEvery), measuring for
// autoFor. A load shorter than autoMinLoad (2 s) gets none.
const (
	autoEvery    = 3 * time.Second
	autoMinEvery = 500 * time.Millisecond
	autoFor      = time.Second
	autoMinLoad  = 2 * time.Second
)

// cutKinds are the fault kinds that stop calls the server may go on with.
var cutKinds = []string{"cancel", "disconnect"}

// autoWindows returns the quiet windows the run takes of its own accord,
// or nil: only when the scenario set none, the process probe is the only
// probe reading the server, and some fault cuts calls.
func autoWindows(p Plan, counting, logs, process bool) *Windows {
	if p.Orphans.Windows != nil || counting || logs || !process || p.SharesServer() || p.Gateway != nil {
		return nil
	}
	if !slices.ContainsFunc(p.Faults, func(f faults.Fault) bool { return slices.Contains(cutKinds, f.Kind()) }) {
		return nil
	}
	total := p.Load.Total()
	if total < autoMinLoad {
		return nil
	}
	every := min(autoEvery, max(total/2, autoMinEvery))
	return &Windows{Every: every, For: autoFor}
}
