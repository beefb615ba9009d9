// Package knobs is the one table of the built-in target's misbehaviour
// knobs: each knob's name, type, range and one-line doc is written once, in
// [Table], and everything else derives from it: the scenario decoder
// (target.builtin keys), the `mcpchaos serve` flags, [Config.Validate],
// [Config.Args] (the flags that start a builtin stdio target) and the knob
// table of the README (a test compares the two).
//
// The package imports only the standard library, so that both scenarios
// (which reads knobs from files) and targetserver (which obeys them) can
// import it while imports still go only downward. It also holds [Rate] and
// its parser, the one rate parser of the tree: this is the lowest package
// that needs one.
//
// Adding a knob is one [Config] field, one line of [Table] and the
// behaviour in targetserver.
package knobs

import "time"

// Protocol eras the HTTP endpoint can serve (see the "era" knob).
const (
	// EraDual routes each HTTP request by its MCP-Protocol-Version header:
	// 2026-07-28 and later to a stateless handler, everything else to a
	// stateful (session) handler. It is the default.
	EraDual = "dual"
	// Era2026 serves only the stateless handler.
	Era2026 = "2026"
	// Era2025 serves only the stateful (session) handler.
	Era2025 = "2025"
)

// Shapes of the rate limit (the rate_limit_kind knob).
const (
	LimitSlidingWindow = "sliding_window"
	LimitTokenBucket   = "token_bucket"
	LimitFixedWindow   = "fixed_window"
)

// Signals of a refused call (the rate_limit_signal knob).
const (
	SignalAuto        = "auto"
	SignalHTTP503     = "http_503"
	SignalRPCCode     = "rpc_code"
	SignalToolMessage = "tool_message"
)

// Retry hints of a refused call (the retry_after knob).
const (
	HintHonest   = "honest"
	HintAbsent   = "absent"
	HintTooLong  = "too_long"
	HintTooShort = "too_short"
)

// The rate-limit headers of a refused call (the rate_limit_headers knob;
// honest is HintHonest).
const (
	HeadersNone  = "none"
	HeadersWrong = "wrong"
)

// DefaultRateLimitCode is the JSON-RPC error code of a throttled call when
// Config.RateLimitCode is zero. It lies outside -32768..-32000, the range
// JSON-RPC reserves (and within it, -32020..-32099, the range MCP
// 2026-07-28 reserves), so no revision can give it a meaning; the 429 in it
// is a hint for people reading logs.
const DefaultRateLimitCode = -31429

// Config selects the target's behaviour. The zero value is a correct server:
// the zero value of every field is its knob's default. What each field does
// is documented once, in [Table].
type Config struct {
	Era                   string
	Seed                  int64
	LeakOnCancel          float64
	StopDelay             time.Duration
	NoPropagateCancel     bool
	ProgressFloodHz       float64
	StallAfter            int
	Endless               bool
	NonMonotonic          float64
	ProgressAfterResponse bool
	RateLimit             Rate
	RateLimitCode         int
	RateLimitKind         string
	RateLimitBurst        int
	RateLimitSignal       string
	RetryAfter            string
	RateLimitHeaders      string
	RateLimitTool         string
	RateLimitPerTool      bool
	RateLimitLockout      time.Duration
	RateLimitMethods      string
	RateLimitKey          string
	RefusalDelay          time.Duration
	RefusalWork           time.Duration
	ConcurrencyLimit      int
	Workers               int
	H2MaxStreams          int
	ExitDelay             time.Duration
	LogCalls              string
	BurnCPU               bool
	XAccelBuffering       bool
	Confirm               bool
	LoadShed              float64
	Tasks                 bool
	TaskPollInterval      time.Duration
	TaskPollLimit         bool
	TaskTTL               time.Duration
	TaskIgnoreCancel      bool
	TaskInput             bool
	TaskUndeclared        bool
	TaskListen            string
}

// Table is every knob, in the order of `mcpchaos serve --help` and of the
// README.
var Table = []Knob{
	{Name: "era", Field: "Era", Kind: Enum, Values: []string{EraDual, Era2026, Era2025}, Arg: "ERA", Setting: true,
		Doc: "which protocol eras HTTP serves: dual (route each request by its MCP-Protocol-Version), 2026 (stateless only) or 2025 (sessions only); stdio always serves both"},
	{Name: "seed", Field: "Seed", Kind: Seed, Arg: "SEED", Setting: true, NotInFile: true,
		Doc: "seed of every random draw (leak and non-monotonic draws); in a scenario, the scenario's own seed"},
	{Name: "leak_on_cancel", Field: "LeakOnCancel", Kind: Prob, Arg: "P",
		Doc: "probability that a call ignores its cancel and runs to the end (orphaned work)"},
	{Name: "stop_delay", Field: "StopDelay", Kind: Duration, Max: 24 * 3600, Arg: "D",
		Doc: "a cancelled call notices its cancel only after this long, then stops"},
	{Name: "propagate_cancel", Field: "NoPropagateCancel", Kind: Bool, Negate: true,
		Doc: "on 2026 HTTP, a closed stream cancels the call (false: the Go SDK's default, the work runs on)"},
	{Name: "progress_flood_hz", Field: "ProgressFloodHz", Kind: Float, Max: 1000, Arg: "N",
		Doc: "extra progress notifications per second per call, on top of one per step, still increasing (0: none)"},
	{Name: "stall_after", Field: "StallAfter", Kind: Int, Max: 1e9, Arg: "N",
		Doc: "progress stops after this many steps while the call keeps working to the end (0: never)"},
	{Name: "endless", Field: "Endless", Kind: Bool,
		Doc: "step tools never finish: they send one progress per step until cancelled"},
	{Name: "non_monotonic", Field: "NonMonotonic", Kind: Prob, Arg: "P",
		Doc: "probability that a progress notification repeats or lowers the previous value"},
	{Name: "progress_after_response", Field: "ProgressAfterResponse", Kind: Bool,
		Doc: "send one more progress notification once a step tool's result is written (on HTTP, 250ms after its POST ended)"},
	{Name: "rate_limit", Field: "RateLimit", Kind: RateKind, Max: maxLimitCount, Arg: "R",
		Doc: "throttle tools/call to N calls per PERIOD (N/PERIOD, e.g. 100/1s), by default at most N in any window of PERIOD (see rate_limit_kind): HTTP 429 with Retry-After, or a JSON-RPC error on stdio"},
	{Name: "rate_limit_code", Field: "RateLimitCode", Kind: Int, Min: -1 << 31, Max: 1<<31 - 1, Arg: "CODE",
		Doc: "JSON-RPC error code of a throttled call (0: -31429, outside every reserved range)"},
	{Name: "rate_limit_kind", Field: "RateLimitKind", Kind: Enum, Values: []string{LimitSlidingWindow, LimitTokenBucket, LimitFixedWindow}, Arg: "KIND",
		Doc: "the shape of rate_limit: sliding_window (at most N in any PERIOD), token_bucket (N per PERIOD refilled continuously, rate_limit_burst tokens at most) or fixed_window (at most N per PERIOD counted from the server's start)"},
	{Name: "rate_limit_burst", Field: "RateLimitBurst", Kind: Int, Max: maxLimitCount, Arg: "N",
		Doc: "token_bucket: the bucket's size, the calls accepted at once after idle (0: N of rate_limit)"},
	{Name: "concurrency_limit", Field: "ConcurrencyLimit", Kind: Int, Max: maxLimitCount, Arg: "N",
		Doc: "refuse a tools/call while N are running, with the signal of a throttled call (0: no cap)"},
	{Name: "rate_limit_signal", Field: "RateLimitSignal", Kind: Enum, Values: []string{SignalAuto, SignalHTTP503, SignalRPCCode, SignalToolMessage}, Arg: "SIGNAL",
		Doc: "how a refused call is answered: auto (HTTP 429, a JSON-RPC error on stdio), http_503, rpc_code (a JSON-RPC error with data.retryAfter; HTTP 200) or tool_message (an isError result `rate limit exceeded (retry after Ns)`)"},
	{Name: "retry_after", Field: "RetryAfter", Kind: Enum, Values: []string{HintHonest, HintAbsent, HintTooLong, HintTooShort}, Arg: "HINT",
		Doc: "the retry hint of a refused call: honest (the wait in whole seconds rounded up, at least 1), absent, too_long (3 × honest + 2) or too_short (honest / 3, rounded down)"},
	{Name: "rate_limit_headers", Field: "RateLimitHeaders", Kind: Enum, Values: []string{HeadersNone, HintHonest, HeadersWrong}, Arg: "CLAIM",
		Doc: "HTTP: a refused call's answer also carries RateLimit-Limit (N of rate_limit), RateLimit-Policy (`N;w=SECONDS`), RateLimit-Remaining (0) and RateLimit-Reset (the wait in whole seconds): none, honest, or wrong (claims 2N)"},
	{Name: "rate_limit_tool", Field: "RateLimitTool", Kind: Enum, Values: []string{"all", "echo", "slow_task", "cpu_task"}, Arg: "TOOL",
		Doc: "the one tool rate_limit and concurrency_limit apply to (all: every tool but inflight)"},
	{Name: "rate_limit_per_tool", Field: "RateLimitPerTool", Kind: Bool,
		Doc: "each limited tool has a rate_limit of its own instead of one budget shared by all of them"},
	{Name: "rate_limit_lockout", Field: "RateLimitLockout", Kind: Duration, Max: 3600, Arg: "D",
		Doc: "a refused tools/call that comes before the previous refusal's wait is over (a client that did not wait as told) locks the limit out for D: every limited call is refused, with the time left as its wait, until D has passed (0: no lock-out)"},
	{Name: "rate_limit_methods", Field: "RateLimitMethods", Kind: Enum, Values: []string{"tools_call", "all"}, Arg: "METHODS",
		Doc: "HTTP: the requests rate_limit counts: tools_call, or all (initialize, server/discover and tools/list take from it too, and are refused the same way when it is spent; with rate_limit_per_tool they share a budget of their own)"},
	{Name: "rate_limit_key", Field: "RateLimitKey", Kind: Enum, Values: []string{"none", "authorization", "x-api-key", "x-client-id"}, Arg: "HEADER",
		Doc: "HTTP: each value of this request header (a bearer token, an API key, a client id) gets a rate_limit and a lock-out of its own; requests without it share one (none: one limit for every client)"},
	{Name: "refusal_delay", Field: "RefusalDelay", Kind: Duration, Max: 60, Arg: "D",
		Doc: "a refused tools/call is answered only after D, as a server that does work (a lookup, a log write) before it refuses (0: at once)"},
	{Name: "refusal_work", Field: "RefusalWork", Kind: Duration, Max: 10, Arg: "D",
		Doc: "a refused tools/call first burns CPU for D, as a server that computes (parses, authenticates, looks up) before it refuses, so a process probe sees refusals cost work (0: none)"},
	{Name: "workers", Field: "Workers", Kind: Int, Max: maxLimitCount, Arg: "N",
		Doc: "at most N tools/call run at once; the others wait their turn, so latency grows past the capacity instead of refusals (0: no limit)"},
	{Name: "h2_max_streams", Field: "H2MaxStreams", Kind: Int, Max: 1 << 20, Arg: "N", Setting: true, NotInFile: true,
		Doc: "HTTPS: the HTTP/2 streams one connection may have open at once, SETTINGS_MAX_CONCURRENT_STREAMS (0: the Go standard library's 250); a client opens more connections past it"},
	{Name: "burn_cpu", Field: "BurnCPU", Kind: Bool,
		Doc: "step tools burn CPU for each step instead of sleeping (slow_task works like cpu_task), so a process probe sees their work"},
	{Name: "x_accel_buffering", Field: "XAccelBuffering", Kind: Bool,
		Doc: "send `X-Accel-Buffering: no` on every SSE response, so nginx passes each event on at once (off: as most SDK servers, whose events nginx then holds back)"},
	{Name: "exit_delay", Field: "ExitDelay", Kind: Duration, Max: 24 * 3600, Arg: "D",
		Doc: "stdio: exit only this long after stdin closes"},
	{Name: "log_calls", Field: "LogCalls", Kind: File, Arg: "FILE", Setting: true,
		Doc: "log a line when a tool call ends, `call ID done` or `call ID cancelled` (ID: its JSON-RPC request id; a call served as a task logs when the task's work ends, under the id of its tools/call), appended to this file; `-`: stderr"},
	{Name: "confirm", Field: "Confirm", Kind: Bool,
		Doc: "add a `deploy` tool (slow_task's arguments) that asks for confirmation first: input_required with an elicitation form in 2026, elicitation/create in 2025; it works only when the answer accepts with confirm: true"},
	{Name: "load_shed", Field: "LoadShed", Kind: Prob, Arg: "P",
		Doc: "probability that a work tool's call is handed back with the 2026 load-shedding answer (input_required with only a requestState); a retry that echoes the state is served"},
	{Name: "tasks", Field: "Tasks", Kind: Bool,
		Doc: "serve the tasks extension (io.modelcontextprotocol/tasks): a 2026 slow_task call that declares it is answered with a task, to poll with tasks/get"},
	{Name: "task_poll_interval", Field: "TaskPollInterval", Kind: Duration, Max: 3600, Arg: "D",
		Doc: "tasks: the pollIntervalMs a task asks for (0: 100ms)"},
	{Name: "task_poll_limit", Field: "TaskPollLimit", Kind: Bool,
		Doc: "tasks: refuse a tasks/get that comes sooner than pollIntervalMs after the task's creation or its previous answered poll (a JSON-RPC error with rate_limit_code and data.retryAfterMs)"},
	{Name: "task_ttl", Field: "TaskTTL", Kind: Duration, Max: 24 * 3600, Arg: "D",
		Doc: "tasks: a task's ttlMs (0: 1m); a task still running then fails (expired), and one ttl later it is deleted (tasks/get: -32602)"},
	{Name: "task_ignore_cancel", Field: "TaskIgnoreCancel", Kind: Bool,
		Doc: "tasks: tasks/cancel is acknowledged but the task works on to completed (leftover work, which the spec allows)"},
	{Name: "task_input", Field: "TaskInput", Kind: Bool,
		Doc: "tasks: a task asks for confirmation after its first step (input_required with an elicitation form); tasks/update accepting confirm: true resumes it, any other answer completes it with a tool error"},
	{Name: "task_undeclared", Field: "TaskUndeclared", Kind: Bool,
		Doc: "tasks: answer a 2026 slow_task call with a task even when its request did not declare the extension (the spec forbids it)"},
	{Name: "task_listen", Field: "TaskListen", Kind: Enum, Values: []string{ListenOff, ListenResult, ListenCancelled}, Arg: "END",
		Doc: "tasks, 2026 HTTP and stdio: serve subscriptions/listen for taskIds (an acknowledgement first, then notifications/tasks at each status change); once every task it agreed to is terminal the stream ends with a result (result) or with notifications/cancelled naming the listen request (cancelled, as the spec's cancellation page asks); off: the SDK's own listen, which leaves task ids out"},
}

// Values of the task_listen knob.
const (
	ListenOff       = "off"
	ListenResult    = "result"
	ListenCancelled = "cancelled"
)

// maxLimitCount bounds N in a rate limit of N per period: the limiter
// keeps the time of each of the last N accepted calls.
const maxLimitCount = 1_000_000

// Lookup returns the knob named name (a scenario key such as
// "leak_on_cancel").
func Lookup(name string) (Knob, bool) {
	for _, k := range Table {
		if k.Name == name {
			return k, true
		}
	}
	return Knob{}, false
}

// EraOrDefault returns c.Era with the default filled in.
func (c Config) EraOrDefault() string {
	if c.Era == "" {
		return EraDual
	}
	return c.Era
}

// Enum returns the value of an Enum knob's field in c with its default
// filled in (the first of its Values).
func (c Config) Enum(name string) string {
	k, ok := Lookup(name)
	if !ok || k.Kind != Enum {
		panic("knobs: no enum knob " + name)
	}
	return k.Format(c)
}

// RateLimitCodeOrDefault returns c.RateLimitCode with the default filled
// in.
func (c Config) RateLimitCodeOrDefault() int {
	if c.RateLimitCode == 0 {
		return DefaultRateLimitCode
	}
	return c.RateLimitCode
}
