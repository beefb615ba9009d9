package summary

import "github.com/mcpchaos/mcpchaos/client"

// The sections of the Summary that the verdict areas judge: progress, the
// protocol's wire rules, cancellation (with the log probe's orphans),
// throttling and timeouts.

// ProgressSummary is what progress notifications looked like.
type ProgressSummary struct {
	Notifications int                `json:"notifications"`
	Calls         int                `json:"calls"`
	MaxRateHz     int                `json:"max_rate_hz"`
	Floods        int                `json:"floods"`
	Stalls        int                `json:"stalls"`
	Incomplete    int                `json:"incomplete"`
	GraceMs       float64            `json:"grace_ms"`
	FloodHz       float64            `json:"flood_hz"`
	StallMs       float64            `json:"stall_ms"`
	Violations    ProgressViolations `json:"violations"`
}

// ProgressViolations counts broken progress rules (mcp-notes §10 D).
type ProgressViolations struct {
	Total         int `json:"total"`
	NonMonotonic  int `json:"non_monotonic"`
	AfterResponse int `json:"after_response"`
	AfterCancel   int `json:"after_cancel"`
	UnknownToken  int `json:"unknown_token"`
	WrongStream   int `json:"wrong_stream"`
}

// ProtocolSummary is the protocol violations and the connection counts.
type ProtocolSummary struct {
	Violations ProtocolViolations `json:"violations"`
	Connection client.Stats       `json:"connection"`
}

// ProtocolViolations counts broken wire rules (mcp-notes §10 A–C, E).
type ProtocolViolations struct {
	Total             int `json:"total"`
	ServerRequest     int `json:"server_request"`
	NotJSONRPC        int `json:"not_jsonrpc"`
	ContentType       int `json:"content_type"`
	Oversize          int `json:"oversize"`
	StreamNotClosed   int `json:"stream_not_closed"`
	BadProgress       int `json:"bad_progress"`
	ServerCancel      int `json:"server_cancel"`
	MissingResultType int `json:"missing_result_type"`
	UnknownResultType int `json:"unknown_result_type"`
	ReservedCode      int `json:"reserved_code"`
	DuplicateResponse int `json:"duplicate_response"`
	// The input_required rules (docs/long-running.md).
	InputWithContent   int `json:"input_with_content"`
	InputRequiredEmpty int `json:"input_required_empty"`
	BadInputRequest    int `json:"bad_input_request"`
	UndeclaredInput    int `json:"undeclared_input"`
	InputMethod        int `json:"input_required_method"`
	// The tasks extension's rules: a tasks/get answer that is no task; a
	// listen stream whose first message is not its acknowledgement, or
	// that carries what was not asked for.
	BadTask           int `json:"bad_task"`
	ListenNoAck       int `json:"listen_no_ack"`
	ListenUnrequested int `json:"listen_unrequested"`
}

// Cancellation is the evidence of work left running after a cancel.
type Cancellation struct {
	Cancels       int `json:"cancels"`
	LateResponses int `json:"late_responses"`
	LateProgress  int `json:"late_progress"`
	LeftoverCalls int `json:"leftover_calls"`
	// LeftoverIDs are the ids of the first leftover calls (a list, not a
	// check key); LeftoverMaxMs the longest time from a cancel to the work
	// seen after it on the wire.
	LeftoverIDs   []int64 `json:"leftover_ids,omitempty"`
	LeftoverMaxMs float64 `json:"leftover_max_ms"`
	// FencedCalls: cut calls whose only evidence of work past the grace
	// is a message read after the answer to a ping sent at cancel + the
	// work grace (stdio), within a tenth of the grace by the clock. They
	// are in LeftoverCalls when WriterOrdered: the run showed the server
	// writes its messages in order (report/fenced.go).
	FencedCalls   int  `json:"fenced_calls"`
	WriterOrdered bool `json:"writer_ordered"`
	// LateQueued: late messages that prove no work (fence.go in engine);
	// LateDrained: late progress read after its call's answer, which came
	// within cancel + grace, a write queue draining (engine/latedrain.go);
	// CancelAnswers: answers to the cancel itself. LateQueuedPrompt: those
	// of LateQueued read before a ping's answer that came within a tenth
	// of the grace (50 ms at most) of cancel + grace: the server read its
	// input in time, no sign of a starved server.
	LateQueued        int     `json:"late_queued"`
	LateQueuedPrompt  int     `json:"late_queued_prompt"`
	LateDrained       int     `json:"late_drained"`
	CancelAnswers     int     `json:"cancel_answers"`
	Orphaned          float64 `json:"orphaned"`
	LeftoverCPUS      float64 `json:"leftover_cpu_s"`
	DrainMs           float64 `json:"drain_ms"`
	Drained           bool    `json:"drained"`
	LeakedCallSeconds float64 `json:"leaked_call_seconds"`
	WorkGraceMs       float64 `json:"work_grace_ms"`
	QuietWindowMs     float64 `json:"quiet_window_ms"`
	// TasksRunningOn: tasks still working after their tasks/cancel when
	// the probes were read after the load; Orphaned and LeftoverCPUS are
	// then theirs as far as a probe can tell, and not judged.
	TasksRunningOn int                `json:"tasks_running_on"`
	ByProbe        map[string]float64 `json:"by_probe"`
	ProbeErrors    []string           `json:"probe_errors,omitempty"`
	// ProcessCPU, Windows, Counting: see windows.go.
	// CutTools counts the calls a fault cut (cancelled or disconnected)
	// or the server disconnected, by tool: the tools whose work the
	// process probe must be able to see (ProcessCPU.Tools).
	CutTools   map[string]int `json:"cut_tools,omitempty"`
	ProcessCPU *ProcessCPU    `json:"process_cpu,omitempty"`
	Windows    Windows        `json:"windows"`
	Counting   int            `json:"counting_probes"`
	// Client is how long mcpchaos itself stalled during the load
	// (starved.go); absent in files written before it existed.
	Client *ClientStall `json:"client,omitempty"`
	// CutPings: pings sent after cuts over HTTP (cutpings.go).
	CutPings *CutPings `json:"cut_pings,omitempty"`
	// WorkFences: how soon the server answered the pings sent at cancel
	// + the work grace on stdio (cutpings.go).
	WorkFences *WorkFences `json:"work_fences,omitempty"`
	// Contention: the faults' cuts projected at the load's own pace
	// (contention.go).
	Contention *Contention `json:"contention,omitempty"`
	// Log is what the log probe that found the most orphans saw; absent
	// without a log probe.
	Log *LogOrphans `json:"log,omitempty"`
	// ServerProcesses: stdio servers that had to be signalled, and
	// processes they left running (processes.go).
	ServerProcesses *ServerProcesses `json:"server_processes,omitempty"`
}

// LogOrphans is what a log probe found: cancelled calls matched, by
// request id, with the line that says they ended.
type LogOrphans struct {
	Probe string `json:"probe"`
	// Lines is how many lines of the log were read during the run.
	Lines int `json:"lines"`
	// Matched: cancelled (or cut) calls whose completion line was seen.
	Matched int `json:"matched"`
	// Orphaned: of those, the calls whose line came later than their
	// cancel plus orphans.grace.
	Orphaned int `json:"orphaned"`
	// OrphanedIDs are the request ids of the first 100 orphans, ascending.
	OrphanedIDs []int64 `json:"orphaned_ids,omitempty"`
	// MaxAfterCancelMs is the longest time from a cancel to its call's
	// completion line, over the orphans.
	MaxAfterCancelMs float64 `json:"max_after_cancel_ms"`
	// Unseen: cancelled calls with no completion line by the end of the
	// probes (still running, or ended without a line the regexp matches).
	Unseen int `json:"unseen"`
}

// Throttling is how and when the server pushed back.
type Throttling struct {
	Total       int            `json:"total"`
	ByKind      map[string]int `json:"by_kind"`
	RetryAfterS RetryAfter     `json:"retry_after_s"`
	OnsetRate   float64        `json:"onset_rate"`
	BestOKRate  float64        `json:"best_ok_rate"`
	Retries     int            `json:"retries"`
	// RetriesNotMade counts throttled calls whose retry was not made
	// because the load ended first (set by the engine).
	RetriesNotMade int `json:"retries_not_made"`
}

// RetryAfter summarises the Retry-After values, in seconds.
type RetryAfter struct {
	P50 float64 `json:"p50"`
	Max float64 `json:"max"`
}

// Timeouts counts the client's timeouts and what each timeout policy would
// have done.
type Timeouts struct {
	Idle            int                     `json:"idle"`
	Cap             int                     `json:"cap"`
	CapWithProgress int                     `json:"cap_with_progress"`
	Policies        map[string]PolicyCounts `json:"policies"`
}

// PolicyCounts is what one client timeout policy would have done.
type PolicyCounts struct {
	Killed        int `json:"killed"`
	WaitedForever int `json:"waited_forever"`
}
