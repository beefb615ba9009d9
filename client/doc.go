// Package client is mcpchaos's own MCP client: the wire, both protocol eras,
// stdio and Streamable HTTP. It is written here rather than taken from an
// SDK because a chaos tool must act at exact moments — close one request's
// stream with a FIN or an RST, write a cancel 150 ms after the second
// progress event, stop reading for five seconds — and see every byte the
// server sends, including the ones it should not.
//
// It knows nothing of faults or metrics: it reports events and takes
// actions, and the engine decides what they mean.
//
// # Eras
//
// 2026-07-28 ("modern") has no handshake: every request carries _meta with
// the protocol version and client capabilities, and on HTTP every request
// is its own POST whose SSE stream belongs to that request alone, so
// closing the stream is the cancel. The 2025 revisions ("legacy") start
// with initialize; on HTTP they keep a session (Mcp-Session-Id) and cancel
// by POSTing notifications/cancelled. On stdio both eras cancel with
// notifications/cancelled. Dial settles the era: server/discover first,
// then initialize when the answer's body says the server is legacy.
//
// # One call's life
//
//	Client.Start ──► request written (POST on its own connection, or one
//	   │             line on the server's stdin); id N, token "pN"
//	   ▼
//	Call.Wait ◄── events, each stamped with a monotonic receive time:
//	   │            EvHeaders   HTTP status, Content-Type, Retry-After
//	   │            EvProgress  notifications/progress for token "pN"
//	   │            EvViolation progress for another token, a server
//	   │                        request, a non-JSON-RPC message, ...
//	   │            EvResult / EvRPCError   the final response
//	   │            EvEnd       the stream ended (last event)
//	   │
//	   ├── Call.Cancel  2026 HTTP: close the stream; 2025 HTTP: POST
//	   │                notifications/cancelled; stdio: write it
//	   ├── Call.Abort   HTTP: FIN or RST (SO_LINGER 0); stdio: close the
//	   │                server's stdin or kill its process group
//	   └── Call.Pause / Resume   stop reading the stream (back-pressure)
//
//	after the final response or a cancel, the stream (HTTP) or the id
//	(stdio) is watched for Config.LateWindow more: whatever still arrives
//	is delivered marked AfterFinal or Late, so late responses and late
//	progress are counted, never matched to another call. Past the window
//	a stopped call's stdio id, or its still open 2025 HTTP stream (see
//	httpstale.go), is remembered: an answer then is Stats.StaleAnswers.
//
// # Bounds
//
// Every read is bounded: a message over Config.MaxMessageBytes (default
// 16 MiB) is a protocol error for its call, never an out-of-memory; on
// stdio the rest of an oversize line is skipped without being kept. An
// SSE stream is read field by field, never a whole line at a time: only
// an event's data is kept (up to the message maximum), and a line without
// data (a comment, an event name, an id) over 64 KiB is a protocol error
// found without keeping it, so a connection costs its read buffers plus
// one message. Response headers are bounded to 1 MiB and the server's
// stderr is kept in a fixed ring.
//
// # Failures
//
// A call that ends without its answer says why (Event.Err):
// IsProtocolError when the server broke the protocol on it (an answer
// that is not JSON-RPC or not valid UTF-8, only responses for other ids,
// an oversize message), else a transport failure. Dial's errors explain
// themselves: a stdio server that exited gives its exit status and the
// last lines of its stderr; a silent server, how long it was waited for
// (or that the wait was interrupted); an HTTP endpoint, the status and the
// URL it came from (without credentials or query).
//
// The receive path decodes with a small validating scanner that returns
// sub-slices of the read buffer, so a progress event costs no allocation.
package client
