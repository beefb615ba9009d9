package client

import (
	"encoding/json"
	"sync"
	"sync/atomic"
	"time"
)

// AbortMode says how Abort drops the transport under a call.
type AbortMode uint8

const (
	// AbortFIN closes the call's HTTP connection with an orderly FIN.
	AbortFIN AbortMode = iota + 1
	// AbortRST resets the call's HTTP connection (SO_LINGER 0).
	AbortRST
	// AbortClose closes the stdio server's stdin.
	AbortClose
	// AbortKill kills the stdio server's process group.
	AbortKill
)

func (m AbortMode) String() string {
	switch m {
	case AbortFIN:
		return "fin"
	case AbortRST:
		return "rst"
	case AbortClose:
		return "close"
	case AbortKill:
		return "kill"
	}
	return "unknown"
}

// CallRequest describes one tools/call.
type CallRequest struct {
	Tool string
	// Arguments is a JSON object, or nil for none.
	Arguments json.RawMessage
	// Progress attaches a progress token (unique for the whole run).
	Progress bool
	// Marker, when its Run is set, goes into _meta under MarkerMeta.
	Marker Marker
	// Malform replaces the request with broken input; MalformSize is the
	// body size for MalformOversize.
	Malform     Malform
	MalformSize int
	// Observer receives the call's events; nil discards them.
	Observer Observer
	// InputResponses (a JSON object) and RequestState (a JSON value,
	// echoed exactly as the server sent it) make the request a 2026 retry
	// after an input_required result; nil: none.
	InputResponses json.RawMessage
	RequestState   json.RawMessage
	// Task declares the tasks extension for this call (2026): the server
	// may answer with a task (resultType "task"; tasks.go).
	Task bool
	// ReuseID, when nonzero, is sent as the request's id (and, with
	// Progress, its token) instead of a new one: the same_id_retry fault
	// retries an input_required call under the id of the request it
	// retries, whose answer came. Ids are otherwise never reused.
	ReuseID int64
}

// Call state bits.
const (
	stFinal     uint32 = 1 << iota // the final response arrived
	stCancelled                    // we cancelled
	stAborted                      // we dropped the transport
	stEnded                        // EvEnd was delivered
	stReleased                     // over for us, its stream still read (httpstale.go)
)

// Call is one request in flight: a handle to watch it and act on it.
//
// Events go to the request's Observer. On HTTP they are delivered by the
// goroutine that runs Wait; on stdio by the process's reader goroutine.
// Cancel, Abort, Pause and Resume may be called from any goroutine.
type Call struct {
	c      *Client
	id     int64
	tok    int64 // 0: no progress token
	method string
	name   string // Mcp-Name
	obs    Observer
	body   []byte
	sent   time.Time

	state atomic.Uint32
	// closedAt is when we closed the call's HTTP connection, as the time
	// since clockBase (0: not closed); see readAt.
	closedAt atomic.Int64
	done     chan struct{}
	once     sync.Once

	paused atomic.Bool
	gate   chan struct{} // closed on Resume; replaced on Pause
	gateMu sync.Mutex

	malform Malform // how the request was broken, if it was
	headers []byte  // extra header lines (Mcp-Param-*), HTTP only

	// transport-specific
	// ahead: more of the call's own stream was already received when the
	// message being delivered was read (Event.Burst); set by its reader.
	ahead   bool
	conn    *httpConn
	raw     bool          // control request: deliver raw result bytes
	listen  bool          // a subscriptions/listen stream (listen.go)
	release chan struct{} // 2025 HTTP: closed when released (httpstale.go)
}

// ID returns the call's JSON-RPC request id.
func (call *Call) ID() int64 { return call.id }

// Token returns the call's progress token id (the token is "p<id>"), or 0.
func (call *Call) Token() int64 { return call.tok }

// Sent returns when the request was written.
func (call *Call) Sent() time.Time { return call.sent }

// Done is closed when the call is over for the client: its final response
// arrived, it was cancelled or aborted, or its transport failed. Late
// events may still be delivered afterwards (see Config.LateWindow).
func (call *Call) Done() <-chan struct{} { return call.done }

// Wait drives the call until it is over and its stream has ended. On HTTP
// it reads the response on the calling goroutine; on stdio it waits.
func (call *Call) Wait() { call.c.tr.wait(call) }

// Cancel cancels the call the era's way: on 2026 HTTP it closes the call's
// stream (and also POSTs notifications/cancelled when alsoNotify is set);
// on 2025 HTTP it POSTs notifications/cancelled with the session; on stdio
// it writes notifications/cancelled. Events after it are marked Late.
func (call *Call) Cancel(reason string, alsoNotify bool) error {
	if call.setState(stCancelled) {
		return nil // already cancelled
	}
	call.finish()
	return call.c.tr.cancel(call, reason, alsoNotify)
}

// Abort drops the transport under the call: HTTP with a FIN or an RST;
// stdio by closing the server's stdin or killing it (which ends every call
// on that process). Events after it are marked Late. A stdio server is
// retired (Retired) before the call ends: whoever waited for the call and
// starts the next one must find the server cut, not send to it.
func (call *Call) Abort(mode AbortMode) error {
	call.setState(stAborted)
	if t, ok := call.c.tr.(*stdioTransport); ok && (mode == AbortClose || mode == AbortKill) {
		t.cut.Store(true)
		t.markRetired()
	}
	call.finish()
	return call.c.tr.abort(call, mode)
}

// Pause stops reading the call's stream (on stdio: the shared pipe) until
// Resume, so the server sees back-pressure.
func (call *Call) Pause() {
	call.gateMu.Lock()
	if !call.paused.Load() {
		call.gate = make(chan struct{})
		call.paused.Store(true)
	}
	call.gateMu.Unlock()
	call.c.tr.pause(call, true)
}

// Resume undoes Pause.
func (call *Call) Resume() {
	call.gateMu.Lock()
	if call.paused.Load() {
		call.paused.Store(false)
		close(call.gate)
	}
	call.gateMu.Unlock()
	call.c.tr.pause(call, false)
}

// waitGate blocks while the call is paused, or until stop is closed.
func (call *Call) waitGate(stop <-chan struct{}) {
	if !call.paused.Load() {
		return
	}
	call.gateMu.Lock()
	g := call.gate
	call.gateMu.Unlock()
	if g == nil {
		return
	}
	select {
	case <-g:
	case <-stop:
	}
}

// setState sets a bit and reports whether it was already set.
func (call *Call) setState(bit uint32) bool {
	for {
		old := call.state.Load()
		if old&bit != 0 {
			return true
		}
		if call.state.CompareAndSwap(old, old|bit) {
			return false
		}
	}
}

// readAt is the time to stamp on what was just read from the call's HTTP
// stream: now, or when we closed the connection if that was earlier. Once
// closed, a connection reads nothing more, so whatever is parsed after the
// close was in our buffers at the close, however long a busy machine kept
// the reader from parsing it.
func (call *Call) readAt() time.Time { return call.readAtFrom(time.Now()) }

// readAtFrom is readAt for a read that ended at now.
func (call *Call) readAtFrom(now time.Time) time.Time {
	if d := time.Duration(call.closedAt.Load()); d != 0 && d < now.Sub(clockBase) {
		return clockBase.Add(d)
	}
	return now
}

// markClosed records that we closed the call's connection now (the first
// close counts).
func (call *Call) markClosed() {
	call.closedAt.CompareAndSwap(0, int64(max(time.Since(clockBase), 1)))
}

// clockBase anchors closedAt, so that readAt keeps the monotonic clock.
var clockBase = time.Now()

func (call *Call) finish() { call.once.Do(func() { close(call.done) }) }

// emit stamps and delivers an event.
func (call *Call) emit(ev Event) {
	call.emitAs(ev, call.state.Load()&stFinal != 0)
}

// emitAs delivers an event whose AfterFinal the caller knows: the final
// response itself is not after the final response.
func (call *Call) emitAs(ev Event, afterFinal bool) {
	if call.state.Load()&stReleased != 0 {
		return // over for the client: what still arrives is stale, counted in Stats
	}
	call.observe(ev, afterFinal)
}

// observe stamps an event and hands it to the call's observer.
func (call *Call) observe(ev Event, afterFinal bool) {
	ev.Late = call.state.Load()&(stCancelled|stAborted) != 0
	ev.AfterFinal = afterFinal
	if call.obs != nil {
		call.obs.OnEvent(ev)
	}
}

// end delivers EvEnd once.
func (call *Call) end(at time.Time, err error) {
	if call.setState(stEnded) {
		return
	}
	call.emit(Event{Kind: EvEnd, At: at, Err: err})
	call.finish()
}

// endReleased ends a call released at the late window after our cancel
// (httpstale.go): stReleased is set before EvEnd is delivered, so that
// whatever its stream carries once the caller has seen the end is counted
// stale, never delivered to it. false: the call had ended already.
func (call *Call) endReleased(at time.Time) bool {
	if call.setState(stEnded) {
		return false
	}
	call.gateMu.Lock()
	call.setState(stReleased)
	call.gateMu.Unlock()
	call.observe(Event{Kind: EvEnd, At: at}, call.state.Load()&stFinal != 0)
	call.finish()
	return true
}

// ended reports whether EvEnd was delivered.
func (call *Call) ended() bool { return call.state.Load()&stEnded != 0 }

// stopped reports whether we cancelled or aborted the call.
func (call *Call) stopped() bool { return call.state.Load()&(stCancelled|stAborted) != 0 }

// lateWindow is how long the call is still watched after its end: the
// cut late window when we cancelled or aborted it (Config.CutLateWindow).
func (call *Call) lateWindow() time.Duration {
	if call.stopped() {
		return call.c.cfg.CutLateWindow
	}
	return call.c.cfg.LateWindow
}
