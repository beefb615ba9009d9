package client

import "time"

// Stale echoes. An answer that arrives after its call's late window is
// not delivered to the call (it is counted in Stats.StaleAnswers), but the
// marker it carries still says which call a server ran to its end: a
// gateway test must count that execution even when no target recorded it
// (a bridge that runs each request in a process of its own loses its
// records with the process). Config.OnStaleAnswer receives it.

// staleAnswer hands a stale result's marker to Config.OnStaleAnswer; m is
// a response to a call we no longer watch. sc is reset to the result.
func (c *Client) staleAnswer(sc *scanner, m *inMsg, at time.Time) {
	if c.cfg.OnStaleAnswer == nil || m.kind != kindResult {
		return
	}
	var r Result
	if err := decodeCallResult(sc, m.result, &r); err != nil || len(r.Marker) == 0 {
		return
	}
	c.cfg.OnStaleAnswer(string(r.Marker), at)
}
