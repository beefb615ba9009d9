// Package results is the per-call record and the results file: one JSON
// object per line, append-only, written by one writer as calls end. The
// first line is a Header; then Records, Samples and Fault lines in the
// order they happened; the last line is a Trailer when the run ended
// normally. A reader skips a torn last line, so a file is readable even
// after a crash.
package results

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// Line types, in the "type" member of every line.
const (
	TypeHeader  = "header"
	TypeCall    = "call"
	TypeSample  = "sample"
	TypeTrailer = "trailer"
)

// Header describes the run. It is the first line.
type Header struct {
	Type      string    `json:"type"`
	Tool      string    `json:"tool"`
	Version   string    `json:"version"`
	Scenario  string    `json:"scenario"`
	File      string    `json:"file,omitempty"`
	Seed      int64     `json:"seed"`
	Era       string    `json:"era"`
	Transport string    `json:"transport"`
	Target    string    `json:"target"`
	Server    string    `json:"server,omitempty"`
	Started   time.Time `json:"started"`
	// Config is the scenario as the run used it (after overrides).
	Config json.RawMessage `json:"config,omitempty"`
	// SchemaVersion is SchemaVersion when the file was written; 0 (absent)
	// is a file of version 1.
	SchemaVersion int `json:"schema_version,omitempty"`
	// Evaluation is what the run was judged by; nil in a version 1 file.
	Evaluation *Evaluation `json:"evaluation,omitempty"`
	// Shard is the slice of the schedule this file holds, when the run was
	// split over several processes (mcpchaos run --shard I/N); nil for a
	// whole run.
	Shard *Shard `json:"shard,omitempty"`

	// HTTPVersion is the HTTP version of the calls, "HTTP/2" or
	// "HTTP/1.1"; absent on stdio.
	HTTPVersion string `json:"http_version,omitempty"`
}

// Shard says which slice of a sharded run a results file holds: the calls
// whose seq % Count == Index, started at StartAt (when every shard was
// given the same instant), LateUs after it when the shard came late (its
// missed ticks are dropped records).
type Shard struct {
	Index   int       `json:"index"`
	Count   int       `json:"count"`
	StartAt time.Time `json:"start_at,omitzero"`
	LateUs  int64     `json:"late_us,omitempty"`
}

// MaxShards is the most shards a run may be split into (run's --shard and
// --shards, and a results header): a merge lists the missing ones, and a
// count beyond any real deployment is a typo or a crafted file.
const MaxShards = 10000

// Validate checks that a shard can be one of a real split: a count from 1
// to MaxShards and an index from 0 to count-1.
func (s Shard) Validate() error {
	switch {
	case s.Count < 1:
		return fmt.Errorf("shard %d/%d: the count must be at least 1", s.Index, s.Count)
	case s.Count > MaxShards:
		return fmt.Errorf("shard %d/%d: the count must be at most %d", s.Index, s.Count, MaxShards)
	case s.Index < 0 || s.Index >= s.Count:
		return fmt.Errorf("shard %d/%d: the index must be from 0 to %d", s.Index, s.Count, s.Count-1)
	}
	return nil
}

// Client limits: what our own process ran out of (Record.Limit, and the
// summary's client_limits). LimitCPU is never a call's: it is the pacer
// falling behind its schedule, a fact of the run.
const (
	LimitFDs    = "fds"    // EMFILE, ENFILE: open file descriptors
	LimitPorts  = "ports"  // EADDRNOTAVAIL: local (ephemeral) ports
	LimitMemory = "memory" // ENOMEM, ENOBUFS, or the client's memory near its limit (engine/memlimit.go)
	LimitCPU    = "cpu"    // the pacer fell behind its schedule
)

// StopReason says who stopped a call before its final response: a
// timeout, the end of the run, or a fault (FaultStop).
type StopReason string

// Stop reasons that are not faults.
const (
	StopTimeoutIdle  StopReason = "timeout_idle"
	StopTimeoutCap   StopReason = "timeout_cap"
	StopGracefulStop StopReason = "graceful_stop" // the load ended and the graceful stop ran out
	StopInterrupted  StopReason = "interrupted"
	// StopQuietWindow: a quiet window of orphans.windows cancelled the call
	// (not a fault: the engine stops every call to measure leftover work).
	StopQuietWindow StopReason = "quiet_window"
)

// FaultStop is the reason a fault of kind gives when it stops a call.
func FaultStop(kind string) StopReason { return StopReason(faultStopPrefix + kind) }

const faultStopPrefix = "fault:"

// Fault returns the kind of the fault that stopped the call, if one did.
func (r StopReason) Fault() (kind string, ok bool) {
	return strings.CutPrefix(string(r), faultStopPrefix)
}

// Record is one call. Times other than Scheduled are microseconds after
// Scheduled; a zero offset that is absent is omitted (-1 never appears).
type Record struct {
	Type string `json:"type"`
	// ID is the JSON-RPC request id (0 for a dropped call that was never sent).
	ID   int64  `json:"id,omitempty"`
	Seq  uint64 `json:"seq"` // tick number: the same seed gives the same calls by seq
	Tool string `json:"tool"`
	// Of is the seq of the call this one re-issues or retries; Attempt counts.
	Of      uint64 `json:"of,omitempty"`
	Attempt int    `json:"attempt,omitempty"`
	Retry   string `json:"retry,omitempty"` // "reissue" or "throttled"
	Process int    `json:"process,omitempty"`

	Scheduled   time.Time `json:"t"`
	SentUs      int64     `json:"sent_us,omitempty"`
	HeadersUs   int64     `json:"headers_us,omitempty"`
	FirstProgUs int64     `json:"first_progress_us,omitempty"`
	ResponseUs  int64     `json:"response_us,omitempty"`
	CancelUs    int64     `json:"cancel_us,omitempty"`
	// CancelSentUs is when the cancel was out (the stream closed, the
	// notification written): the server cannot stop before it.
	CancelSentUs int64      `json:"cancel_sent_us,omitempty"`
	EndUs        int64      `json:"end_us,omitempty"`
	DeadlineUs   int64      `json:"deadline_us,omitempty"`      // the timeout that fired, when one did
	TimeoutErrUs int64      `json:"timeout_error_us,omitempty"` // cancel time minus that deadline
	CancelReason StopReason `json:"cancel_reason,omitempty"`
	Outcome      string     `json:"outcome"`
	Status       int        `json:"status,omitempty"`
	Code         *int64     `json:"code,omitempty"`
	Message      string     `json:"message,omitempty"`
	ThrottleKind string     `json:"throttle_kind,omitempty"`
	RetryAfterMs *int64     `json:"retry_after_ms,omitempty"`
	ResultType   string     `json:"result_type,omitempty"`
	Error        string     `json:"error,omitempty"`
	// Limit is what our process ran out of when Outcome is ClientLimit
	// (LimitFDs, LimitPorts, LimitMemory).
	Limit         string    `json:"limit,omitempty"`
	Progress      *Progress `json:"progress,omitempty"`
	Violations    Counts    `json:"violations,omitempty"`
	LateResponses int       `json:"late_responses,omitempty"`
	LateProgress  int       `json:"late_progress,omitempty"`
	// LeftoverUs is how long after our cancel the server was last seen
	// working on this call (stdio and open legacy streams).
	LeftoverUs int64 `json:"leftover_us,omitempty"`
	// FencedUs is how long after our cancel the last message was read that
	// came after the answer to the ping sent at cancel + the work grace
	// (stdio), when that is all that shows work after the grace: by the
	// clock it came within the fence's give or take (a tenth of the
	// grace). It counts as leftover work only when the server writes in
	// order (the summary's cancellation.writer_ordered).
	FencedUs int64 `json:"fenced_us,omitempty"`
	// FenceLagUs is, for a call cancelled on stdio, how long after our
	// cancel plus the work grace the answer to the ping sent then (the
	// work fence) was read: work of this call that ended within that lag
	// past the grace may have been written before the server read the
	// ping, and then shows nothing on the wire (the resolution of the
	// wire's evidence, summary's cancellation.work_fences). -1: no answer
	// had come when the record was taken (the call's late window).
	FenceLagUs int64 `json:"fence_lag_us,omitempty"`
	// LateQueued counts messages later than our cancel plus the grace that
	// were read before the answer to a ping sent after it (stdio): the
	// server may have written them before it saw the cancel, so they show
	// no work after it.
	LateQueued int `json:"late_queued,omitempty"`
	// LateQueuedPrompt counts those of LateQueued read before a prompt
	// answer: one that came within a tenth of the grace (50 ms at most)
	// after this call's cancel plus the grace. The server then read its
	// input in time, so they were written by then: queued, and no sign
	// that the server was starved.
	LateQueuedPrompt int `json:"late_queued_prompt,omitempty"`
	// LateDrained counts progress notifications later than our cancel
	// plus the grace, read after the call's own answer, which came within
	// it: produced before that answer, they waited in a write queue, and
	// show no work after the cancel.
	LateDrained int `json:"late_drained,omitempty"`
	// CancelAnswers counts answers after our cancel whose text says the
	// call was cancelled or stopped: the server's answer to the cancel,
	// not the result of finished work.
	CancelAnswers int     `json:"cancel_answers,omitempty"`
	Faults        []Fault `json:"faults,omitempty"`
	// CapWithProgress: the cap fired while progress still arrived within
	// the idle timeout (a reset-only client would have waited for ever).
	CapWithProgress bool `json:"cap_with_progress,omitempty"`
	// Policies maps each client timeout policy to what it would have done:
	// "ok", "killed" or "waited_forever".
	Policies map[string]string `json:"policies,omitempty"`
	// Rounds counts the retries the call made after input_required
	// results (2026, docs/long-running.md), LoadShed those that answered a
	// load-shedding result (requestState only), Inputs the input requests
	// answered, by kind (elicitation, sampling, roots; 2025 requests on the
	// call's own stream included) and ThinkUs the time spent waiting
	// before answering them, part of the call's latency.
	Rounds   int    `json:"rounds,omitempty"`
	LoadShed int    `json:"load_shed,omitempty"`
	Inputs   Counts `json:"inputs,omitempty"`
	ThinkUs  int64  `json:"think_us,omitempty"`
	// ContentMismatch counts the accepted forms whose content (from the
	// scenario) did not fit the form's requestedSchema.
	ContentMismatch int `json:"content_mismatch,omitempty"`
	// Phase names the step of a search that sent the call (mcpchaos
	// limits: burst, recover, step, hold, ...); empty in a run.
	Phase string `json:"phase,omitempty"`
	// RetryHintMs is a retry time the answer gave elsewhere than in a
	// Retry-After header: in a JSON-RPC error's data (retryAfter,
	// retryAfterSeconds, retryAfterMs, waitTimeSeconds) or in a message's
	// text ("retry after 3s"); RetryHintFrom says where.
	RetryHintMs   *int64 `json:"retry_hint_ms,omitempty"`
	RetryHintFrom string `json:"retry_hint_from,omitempty"`
	// RateLimitLimit is the quota the answer's rate-limit headers claim
	// (RateLimit-Limit, X-RateLimit-Limit, a RateLimit-Policy's), per
	// RateLimitWindowMs when they say (0: they did not);
	// RateLimitFrom names the header. RateLimitResetMs is the wait a
	// RateLimit-Reset (X-RateLimit-Reset, the RateLimit field's reset)
	// gave.
	RateLimitLimit    int    `json:"ratelimit_limit,omitempty"`
	RateLimitWindowMs int64  `json:"ratelimit_window_ms,omitempty"`
	RateLimitFrom     string `json:"ratelimit_from,omitempty"`
	RateLimitResetMs  *int64 `json:"ratelimit_reset_ms,omitempty"`
	// Task is the task the server made of the call (the tasks extension,
	// docs/long-running.md); nil when it made none.
	Task *Task `json:"task,omitempty"`
}

// Task is what a call's task did, as the client followed it.
type Task struct {
	ID string `json:"id"`
	// Status is the last status seen: terminal, or the one it had when
	// the client stopped following it.
	Status string `json:"status"`
	// CreatedUs is when the CreateTaskResult arrived and EndUs when a
	// terminal status was first seen (0: never), offsets from Scheduled.
	CreatedUs int64 `json:"created_us"`
	EndUs     int64 `json:"end_us,omitempty"`
	// IntervalMs is the last pollIntervalMs the server asked for (-1:
	// none).
	IntervalMs int64 `json:"interval_ms"`
	// Polls counts the tasks/get sent, PollThrottled those refused as too
	// soon, Updates the tasks/update sent.
	Polls         int `json:"polls"`
	PollThrottled int `json:"poll_throttled,omitempty"`
	Updates       int `json:"updates,omitempty"`
	// CancelUs is when tasks/cancel was sent (0: never). Leftover: after
	// it, the task did not end cancelled within orphans.grace (it
	// completed, or was still running): information, not a violation.
	CancelUs int64 `json:"cancel_us,omitempty"`
	Leftover bool  `json:"leftover,omitempty"`
	// Listened: a subscriptions/listen stream for the task was
	// acknowledged with its id (the server offers notifications/tasks);
	// Pushed counts the notifications/tasks received for it.
	Listened bool `json:"listened,omitempty"`
	Pushed   int  `json:"pushed,omitempty"`
}

// Progress is what a call's progress notifications looked like.
type Progress struct {
	Count int `json:"count"`
	// Values are the first values received (at most MaxValues).
	Values    []float64 `json:"values,omitempty"`
	Last      float64   `json:"last"`
	Total     float64   `json:"total,omitempty"`
	MaxGapUs  int64     `json:"max_gap_us,omitempty"`
	MaxRateHz int       `json:"max_rate_hz,omitempty"`
	Stalled   bool      `json:"stalled,omitempty"`
	Flood     bool      `json:"flood,omitempty"`
	// Incomplete: the result arrived while the last progress was below the
	// total last announced.
	Incomplete bool `json:"incomplete,omitempty"`
	// LeadUs is how long before the call's answer its last in-order
	// progress notification was read (at least 1 µs; absent with no
	// progress before the answer, for a call cut before its answer, and
	// for a task). Progress after the answer (the after_response
	// violation) does not move it.
	LeadUs int64 `json:"lead_us,omitempty"`
}

// MaxValues bounds Progress.Values.
const MaxValues = 64

// Counts maps a name to a count.
type Counts map[string]int

// Add increments name.
func (c *Counts) Add(name string, n int) {
	if *c == nil {
		*c = make(Counts)
	}
	(*c)[name] += n
}

// Fault is one fault injected into a call.
type Fault struct {
	Kind string `json:"kind"`
	Mode string `json:"mode,omitempty"`
	// ScheduledUs and ActualUs are offsets from the call's Scheduled time;
	// ErrorUs = actual - scheduled.
	ScheduledUs int64  `json:"scheduled_us"`
	ActualUs    int64  `json:"actual_us"`
	ErrorUs     int64  `json:"error_us"`
	Detail      string `json:"detail,omitempty"`
	// Skipped: the fault was drawn for the call but the call ended before
	// its time came, so nothing was done (kept so a replay can be compared
	// draw for draw).
	Skipped bool `json:"skipped,omitempty"`
}

// Sample is one reading of the probes and the client during the run.
type Sample struct {
	Type string `json:"type"`
	// T is when the probes' read ended; ReadUs how long it took (0 in
	// files of older versions): a probe's value holds at some instant of
	// [T − ReadUs, T], and ClientInFlight is the most calls in flight then.
	T              time.Time          `json:"t"`
	ReadUs         int64              `json:"read_us,omitempty"`
	ClientInFlight int                `json:"client_inflight"`
	OfferedRate    float64            `json:"offered_rate"`
	Probes         map[string]float64 `json:"probes,omitempty"`
	// Sched is the server's threads since the previous sample (a process
	// probe on a kernel that keeps schedstat), absent otherwise.
	Sched *SchedInterval `json:"sched,omitempty"`
}

// SchedInterval is what the server's threads did between two samples:
// their time on a CPU and waiting for one (summed thread by thread), the
// longest any one of them was runnable, and the client's calls' live
// time (the calls in flight integrated over the interval), all in seconds.
type SchedInterval struct {
	OnCPUS   float64 `json:"on_cpu_s"`
	WaitS    float64 `json:"wait_s"`
	BusiestS float64 `json:"busiest_s"`
	LiveS    float64 `json:"live_s"`
}

// Trailer ends a run that finished normally: what only the run as a whole
// knows (probe verdicts, connection-level observations).
type Trailer struct {
	Type        string          `json:"type"`
	Ended       time.Time       `json:"ended"`
	Interrupted bool            `json:"interrupted,omitempty"`
	Summary     json.RawMessage `json:"summary,omitempty"`
	// Run is what only the run as a whole knew (report.RunInputs as JSON);
	// absent in a version 1 file.
	Run RunInputs `json:"run,omitempty"`
}

// Us converts a duration to whole microseconds, at least 1 so a real
// offset is never taken for "absent".
func Us(d time.Duration) int64 {
	us := d.Microseconds()
	if us <= 0 {
		return 1
	}
	return us
}
