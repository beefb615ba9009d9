package client

import "sync/atomic"

// Stats are connection-level observations: things the server did that
// belong to no live call (on stdio every message shares one pipe).
type Stats struct {
	// NotJSONRPC counts stdout lines that were not JSON-RPC messages and
	// named no call in flight (one that does is that call's violation).
	NotJSONRPC int64 `json:"not_jsonrpc"`
	// Oversize counts stdout lines over the maximum size that named no
	// call in flight (one that does is that call's violation).
	Oversize int64 `json:"oversize"`
	// UnknownResponses counts well-formed responses that answer no call in
	// flight: on stdio an id never sent, on HTTP another id than that of
	// the request whose stream carried it.
	UnknownResponses int64 `json:"unknown_responses"`
	// UnknownTokens counts progress for tokens never sent.
	UnknownTokens int64 `json:"unknown_tokens"`
	// Stale counts responses and progress for calls that ended longer ago
	// than the late window.
	Stale int64 `json:"stale"`
	// StaleAnswers counts the stale responses (a result, or an error sent
	// when the handler finally ended) to calls we stopped before their
	// answer: the server was still working on them after the late window,
	// long after our cancel. Seen on stdio and on the stream of a 2025 HTTP
	// call (a 2026 cancel closes the stream: nothing can arrive). On stdio
	// only an answer read after the answer to a fence (Fence) sent after
	// the stop counts: one read before it may have been written before the
	// server saw the cancel.
	StaleAnswers int64 `json:"stale_answers"`
	// ServerRequests counts server-initiated requests (2026 forbids them).
	ServerRequests int64 `json:"server_requests"`
	// ServerCancels counts notifications/cancelled sent by the server.
	ServerCancels int64 `json:"server_cancels"`
	// OtherStream counts progress notifications credited to their call by
	// token though they came on another stream of the session (HTTP:
	// another call's POST stream, or the standalone GET stream); see
	// otherstream.go.
	OtherStream int64 `json:"other_stream"`
	// GetStreams counts the standalone GET streams a 2025 HTTP session
	// opened (reopenings included); 0 when the server offers none (405).
	GetStreams int64 `json:"get_streams"`
	// InputElicitation, InputSampling and InputRoots count the input
	// requests a 2025 server sent (elicitation/create,
	// sampling/createMessage, roots/list) on no call's own stream (stdio,
	// the GET stream) that were answered from the scenario's client
	// section (input.go); those on a call's stream count in its record.
	InputElicitation int64 `json:"input_elicitation"`
	InputSampling    int64 `json:"input_sampling"`
	InputRoots       int64 `json:"input_roots"`
	// UndeclaredInput counts input requests a 2025 server sent on no
	// call's own stream for a capability the client did not declare (a
	// violation).
	UndeclaredInput int64 `json:"undeclared_input"`
	// InputMethod counts input_required answers to requests that may not
	// carry one (server/discover, tools/list; a violation).
	InputMethod int64 `json:"input_required_method"`
	// ContentMismatch counts the answers among the Input* ones that were
	// accepted forms whose content does not fit the form's
	// requestedSchema (the scenario's mistake, not the server's).
	ContentMismatch int64 `json:"content_mismatch"`
}

type connStats struct {
	notJSONRPC, oversize, unknownResponses, unknownTokens atomic.Int64
	stale, serverRequests, serverCancels                  atomic.Int64
	staleAnswers, otherStream, getStreams                 atomic.Int64
	inputElicitation, inputSampling, inputRoots           atomic.Int64
	undeclaredInput, inputMethod, contentMismatch         atomic.Int64
}

// countInput counts an answered input request of kind (see InputKind).
func (s *connStats) countInput(kind string) {
	switch kind {
	case "elicitation":
		s.inputElicitation.Add(1)
	case "sampling":
		s.inputSampling.Add(1)
	case "roots":
		s.inputRoots.Add(1)
	}
}

func (s *connStats) snapshot() Stats {
	return Stats{
		NotJSONRPC:       s.notJSONRPC.Load(),
		Oversize:         s.oversize.Load(),
		UnknownResponses: s.unknownResponses.Load(),
		UnknownTokens:    s.unknownTokens.Load(),
		Stale:            s.stale.Load(),
		StaleAnswers:     s.staleAnswers.Load(),
		ServerRequests:   s.serverRequests.Load(),
		ServerCancels:    s.serverCancels.Load(),
		OtherStream:      s.otherStream.Load(),
		GetStreams:       s.getStreams.Load(),
		InputElicitation: s.inputElicitation.Load(),
		InputSampling:    s.inputSampling.Load(),
		InputRoots:       s.inputRoots.Load(),
		UndeclaredInput:  s.undeclaredInput.Load(),
		InputMethod:      s.inputMethod.Load(),
		ContentMismatch:  s.contentMismatch.Load(),
	}
}
