package client

import (
	"time"
)

// EventKind says what an Event reports.
type EventKind uint8

const (
	// EvHeaders: the HTTP response status and headers of the call's POST
	// arrived (HTTP only). Status, ContentType and RetryAfter are set.
	EvHeaders EventKind = iota + 1
	// EvProgress: a notifications/progress for this call's token.
	EvProgress
	// EvResult: the final JSON-RPC result. Result is set.
	EvResult
	// EvRPCError: the final JSON-RPC error. Code and Message are set.
	EvRPCError
	// EvViolation: the server broke a protocol rule on this call's stream or
	// for this call's id or token. Violation and Detail are set.
	EvViolation
	// EvEnd: the call's stream or transport ended. Err is nil for a clean
	// end and says what happened otherwise (IsProtocolError tells a server
	// that broke the protocol from a failed transport). It is the last
	// event of a call unless late events follow on a shared transport
	// (stdio).
	EvEnd
	// EvInput: a 2025 server asked for input on the call's own stream and
	// the client will answer it after Think (input.go). Detail is the
	// kind (see InputKind), ContentMismatch set when the answer is an
	// accepted form whose content does not fit it. An EvInputSent follows
	// unless the call ends first.
	EvInput
	// EvListen: a notification on a subscriptions/listen stream (listen.go).
	// Detail is its method, Raw its params (valid during OnEvent only).
	// A notifications/cancelled naming the listen request is one too: the
	// server's way to end the stream, no violation.
	EvListen
	// EvInputSent: the answer to an EvInput went, its Think over (At: when),
	// or, with Err set, it was dropped and never goes. Detail, Think and
	// ContentMismatch are the EvInput's. It is not sent for a call that
	// had ended when the think was over, but one that ends meanwhile may
	// see it after its EvEnd: an observer ignores it then. It comes from
	// the goroutine that waited out the think.
	EvInputSent
)

func (k EventKind) String() string {
	switch k {
	case EvHeaders:
		return "headers"
	case EvProgress:
		return "progress"
	case EvResult:
		return "result"
	case EvRPCError:
		return "rpc_error"
	case EvViolation:
		return "violation"
	case EvEnd:
		return "end"
	case EvInput:
		return "input"
	case EvListen:
		return "listen"
	case EvInputSent:
		return "input_sent"
	}
	return "unknown"
}

// Violation names a protocol rule a server broke, as seen by the client.
type Violation uint8

const (
	// ViolUnknownToken: progress for a token this client never sent.
	ViolUnknownToken Violation = iota + 1
	// ViolWrongStream: progress for another call's token on this call's
	// stream (HTTP): on 2026 HTTP always (each stream is scoped to its
	// request), on a 2025 session only when no call in flight has that
	// token (else it is credited to its call: Event.OtherStream).
	ViolWrongStream
	// ViolServerRequest: a server-initiated JSON-RPC request (method and id).
	ViolServerRequest
	// ViolContentType: a 2xx answer to a request POST whose Content-Type is
	// neither application/json nor text/event-stream.
	ViolContentType
	// ViolNotJSONRPC: a message or line that is not valid JSON-RPC.
	ViolNotJSONRPC
	// ViolOversize: a message larger than the configured maximum, or an
	// SSE line without data longer than 64 KiB.
	ViolOversize
	// ViolStreamNotClosed: the SSE stream stayed open after the final
	// response (a SHOULD in the spec).
	ViolStreamNotClosed
	// ViolBadProgress: a progress notification with missing or mistyped
	// fields.
	ViolBadProgress
	// ViolServerCancel: the server sent notifications/cancelled for a
	// tools/call (2026 allows it only for subscriptions/listen).
	ViolServerCancel
	// ViolUndeclaredInput: an input request (2025: a server request; 2026:
	// an entry of inputRequests) for a capability the client did not
	// declare.
	ViolUndeclaredInput
)

func (v Violation) String() string {
	switch v {
	case ViolUnknownToken:
		return "unknown_token"
	case ViolWrongStream:
		return "wrong_stream"
	case ViolServerRequest:
		return "server_request"
	case ViolContentType:
		return "content_type"
	case ViolNotJSONRPC:
		return "not_jsonrpc"
	case ViolOversize:
		return "oversize"
	case ViolStreamNotClosed:
		return "stream_not_closed"
	case ViolBadProgress:
		return "bad_progress"
	case ViolServerCancel:
		return "server_cancel"
	case ViolUndeclaredInput:
		return "undeclared_input"
	}
	return "unknown"
}

// ResultType is the resultType of a 2026 result.
type ResultType uint8

const (
	// ResultMissing: no resultType, as legacy servers send (means complete).
	ResultMissing ResultType = iota
	ResultComplete
	ResultInputRequired
	ResultTask
	// ResultUnknown: a value the spec does not define (invalid).
	ResultUnknown
)

func (r ResultType) String() string {
	switch r {
	case ResultMissing:
		return "missing"
	case ResultComplete:
		return "complete"
	case ResultInputRequired:
		return "input_required"
	case ResultTask:
		return "task"
	}
	return "unknown"
}

// Result describes a tools/call result without keeping its bytes.
type Result struct {
	Type          ResultType
	IsError       bool
	HasStructured bool
	// StateOnly: input_required carrying requestState and no inputRequests,
	// the spec's load-shedding answer.
	StateOnly bool
	// Text is the raw body of the first text content block's JSON string
	// (see Unquote), valid only during OnEvent.
	Text []byte
	// HasContent: the result carries content (input_required must not).
	HasContent bool
	// InputRequests is the raw inputRequests object and RequestState the
	// raw requestState value (a JSON string with its quotes), when the
	// result carries them; valid only during OnEvent.
	InputRequests []byte
	RequestState  []byte
	// Marker is the raw body of _meta's MarkerMeta string, when the server
	// echoed a marker (the built-in target does), valid only during OnEvent.
	Marker []byte
	// TaskID and TaskStatus are the raw bodies of a CreateTaskResult's
	// taskId and status strings, and PollIntervalMs its pollIntervalMs
	// (-1: absent or not an integer), for Type ResultTask; valid only
	// during OnEvent.
	TaskID, TaskStatus []byte
	PollIntervalMs     int64
}

// Event is one thing that happened to a call. Byte slices are valid only
// during the OnEvent call that delivers them.
type Event struct {
	Kind EventKind
	// At is when the event was received, with a monotonic clock reading.
	At time.Time
	// Late: received after this client cancelled or aborted the call.
	Late bool
	// AfterFinal: received after the call's final response.
	AfterFinal bool

	// EvHeaders
	Status      int
	ContentType string
	// RetryAfter from a Retry-After header; -1 when absent.
	RetryAfter time.Duration
	// RateLimitReset from RateLimit-Reset, X-RateLimit-Reset or the
	// RateLimit field (ratelimithdr.go); -1 when absent.
	RateLimitReset time.Duration
	// RateLimit is the limit the rate-limit headers claim (ratelimithdr.go).
	RateLimit RateLimitClaim

	// EvProgress
	Progress float64
	Total    float64
	HasTotal bool
	// OtherStream: the notification came on another stream of the
	// session than the call's own (another call's POST stream, or a 2025
	// session's standalone GET stream) and was credited to the call by its
	// token (see Stats.OtherStream).
	OtherStream bool
	// Burst: the call's answer had already been received when this
	// notification was read (HTTP: a "result" or "error" member among the
	// bytes buffered behind it), as when a buffering gateway releases held
	// progress with the result in one piece. Notifications merely queued
	// behind a slow reader, with no answer among them, are no burst.
	Burst bool

	// EvResult
	Result Result

	// EvRPCError; Message is the raw body of the JSON string (see Unquote).
	Code    int64
	Message []byte

	// Raw is the error's data (EvRPCError), or the whole result of a
	// control request (EvResult), valid only during OnEvent.
	Raw []byte

	// EvViolation
	Violation Violation
	Detail    string

	// EvEnd; EvInputSent when the answer was dropped
	Err error

	// EvInput, EvInputSent
	Think           time.Duration
	ContentMismatch bool
}

// Observer receives a call's events as they arrive. OnEvent runs on the
// transport's goroutines (the HTTP reader, the stdio reader, the stdio
// late-window timer, a 2025 input answer's wait), so it must be safe for concurrent use and quick. On
// stdio it must not block: the reader is shared by every call of the
// process. On HTTP each call's stream has a reader of its own, so OnEvent
// may act on the call itself (cancel, abort, pause) before the next message
// is read; progress credited from another stream of the session
// (Event.OtherStream) is delivered by that stream's reader.
type Observer interface {
	OnEvent(ev Event)
}

// ObserverFunc adapts a function to Observer.
type ObserverFunc func(Event)

// OnEvent calls f(ev).
func (f ObserverFunc) OnEvent(ev Event) { f(ev) }
