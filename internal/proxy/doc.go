// Package proxy is `mcpchaos proxy`: a fault-injecting MCP proxy that sits
// between any MCP client and any MCP server, injects server-side faults
// toward the client and records how the client reacted.
//
// It serves Streamable HTTP at /mcp and forwards every request to the
// upstream's endpoint, headers and all, so both eras pass through: a
// 2026-07-28 request is its own POST, a 2025 one carries its session id.
// It also serves the 2024-11-05 HTTP+SSE transport at /sse, each POSTed
// message handled by the /mcp side in process (ssefront.go,
// ssebridge.go), and speaks it to an upstream with transport sse
// (sseup.go, sseupsession.go).
// Every tools/call is a call: the proxy draws the faults for it from the
// proxy file's seed and the call's sequence number, then either answers it
// itself (throttle) or forwards it and rewrites the stream on its way back
// (progress_endless, delay_response, drop_response, server_cancel). Each
// fault lives in its own file; kinds.go lists them, and the registry of
// fault kinds (internal/faultkinds), shared with a scenario's faults, says
// which exist and what a correct client does under each.
//
// Cancellation passes through. When the client closes a call's stream (the
// 2026 cancel) the proxy closes the upstream request; a
// notifications/cancelled (the 2025 cancel) is forwarded as it came. Either
// way the call's record says how the client cancelled and after how long.
//
// What the proxy records per call (record.go): the client's request, what
// was injected, and the reaction — cancelled (stream closed or
// notification) and when, left hanging until the hold, re-issued (with a
// new id or the same one), and for a throttled call, the time until the
// client's next call against the Retry-After it was given. A client is
// known by its Mcp-Session-Id, else by the proxy file's identity header,
// else by its remote IP and User-Agent (client.go). Each record is
// written when its call settles (recout.go); only open calls and bounded
// indexes stay in memory.
//
// In front of a stdio upstream (stdioup.go) the proxy is the one client
// of the server process: it initializes the server once for all 2025
// clients and keeps their sessions itself (stdiosession.go).
package proxy
