package scenarios

import (
	"path"
	"strings"
)

// FaultKind names a fault.
type FaultKind string

// Per-call fault kinds: each acts on one call, chosen with Probability
// among the calls whose tool matches Tools.
const (
	FaultCancel     FaultKind = "cancel"      // cancel the call (the era's way) at After / AfterProgress
	FaultDisconnect FaultKind = "disconnect"  // drop the connection at After / AfterProgress
	FaultCancelRace FaultKind = "cancel_race" // cancel as the response arrives, or BeforeEnd before it
	FaultStallRead  FaultKind = "stall_read"  // stop reading the response for For
	FaultMalformed  FaultKind = "malformed"   // send a malformed request instead (Mode)
	FaultReissue    FaultKind = "reissue"     // re-issue a disconnected or cancelled call, up to Max times
)

// Background fault kinds: they run at Rate for the whole load, apart from
// any call.
const (
	FaultNotifyFlood   FaultKind = "notify_flood"   // flood the server with notifications
	FaultCancelUnknown FaultKind = "cancel_unknown" // cancel request ids that were never sent
)

// Disconnect modes.
const (
	DisconnectFIN   = "fin"   // HTTP: close the connection cleanly
	DisconnectRST   = "rst"   // HTTP: reset the connection
	DisconnectClose = "close" // stdio: close the server's stdin
	DisconnectKill  = "kill"  // stdio: kill the server process
)

// Malformed modes.
const (
	MalformedJSON        = "json"         // a body that is not JSON
	MalformedParams      = "params"       // valid JSON-RPC with invalid params
	MalformedOversize    = "oversize"     // a request of Size bytes
	MalformedMissingMeta = "missing_meta" // a 2026 request without _meta
)

// CancelRaceAtResponse is the only value of Fault.At.
const CancelRaceAtResponse = "response"

// Fault is one entry of the faults list: Kind says which fields apply.
type Fault struct {
	Kind FaultKind
	Pos  Pos

	// Per-call kinds.
	Probability   float64  // 0..1, default 1
	Tools         []string // path.Match patterns over tool names; empty = every tool
	After         *Dist    // cancel, disconnect, stall_read: when, from the send
	AfterProgress int      // cancel, disconnect, stall_read: after this many progress notifications (>= 1)
	AlsoNotify    bool     // cancel: on 2026 HTTP, also send notifications/cancelled
	Mode          string   // disconnect (fin, rst, close, kill) or malformed (json, params, oversize, missing_meta)
	At            string   // cancel_race: CancelRaceAtResponse
	BeforeEnd     Duration // cancel_race: this long before the expected end
	For           Duration // stall_read: how long to stop reading
	Size          ByteSize // malformed oversize: request size; default 8MiB
	Max           int      // reissue: re-issues per original call; default 1

	// Background kinds.
	Rate Rate
}

// Background reports whether k runs in the background rather than on calls.
func (k FaultKind) Background() bool {
	return k == FaultNotifyFlood || k == FaultCancelUnknown
}

// AppliesTo reports whether f may act on a call of tool: Tools is empty or
// one of its patterns matches. Background faults apply to no call.
func (f Fault) AppliesTo(tool string) bool {
	if f.Kind.Background() {
		return false
	}
	if len(f.Tools) == 0 {
		return true
	}
	for _, p := range f.Tools {
		if ok, _ := path.Match(p, tool); ok {
			return true
		}
	}
	return false
}

// faultSpec is what a fault kind accepts.
type faultSpec struct {
	kind  FaultKind
	timed bool     // exactly one of after / after_progress is required
	keys  []string // keys besides kind (and the per-call common keys)
}

// perCallKeys are the keys every per-call fault accepts.
var perCallKeys = []string{"probability", "tools"}

// faultSpecs is the immutable table of fault kinds, in documentation order.
var faultSpecs = [...]faultSpec{
	{FaultCancel, true, []string{"after", "after_progress", "also_notify"}},
	{FaultDisconnect, true, []string{"after", "after_progress", "mode"}},
	{FaultCancelRace, false, []string{"at", "before_end"}},
	{FaultStallRead, true, []string{"after", "after_progress", "for"}},
	{FaultMalformed, false, []string{"mode", "size"}},
	{FaultReissue, false, []string{"max"}},
	{FaultNotifyFlood, false, []string{"rate"}},
	{FaultCancelUnknown, false, []string{"rate"}},
}

func lookupFault(kind string) (faultSpec, bool) {
	for _, s := range faultSpecs {
		if string(s.kind) == kind {
			return s, true
		}
	}
	return faultSpec{}, false
}

// allowedKeys returns every key a fault of this kind accepts.
func (s faultSpec) allowedKeys() []string {
	keys := []string{"kind"}
	if !s.kind.Background() {
		keys = append(keys, perCallKeys...)
	}
	return append(keys, s.keys...)
}

func faultKindNames() string {
	names := make([]string, len(faultSpecs))
	for i, s := range faultSpecs {
		names[i] = string(s.kind)
	}
	return strings.Join(names, ", ")
}
