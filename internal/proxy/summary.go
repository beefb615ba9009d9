package proxy

import (
	"fmt"
	"io"
	"maps"
	"slices"

	"github.com/mcpchaos/mcpchaos/internal/termsafe"
	"github.com/mcpchaos/mcpchaos/report"
)

// Summary is what `mcpchaos proxy` reports about the clients that
// went through it: how many calls, how many the clients cancelled and
// after how long, how many they left hanging until the proxy's hold, how
// many they re-issued and whether they waited out a Retry-After.
type Summary struct {
	Name    string         `json:"name"`
	Seed    int64          `json:"seed"`
	Listen  string         `json:"listen"`
	Clients Clients        `json:"clients"`
	Faults  map[string]int `json:"faults"` // injections by kind
}

// Clients are the summary's clients.* keys.
type Clients struct {
	Calls              int64 `json:"calls"`
	Cancelled          int64 `json:"cancelled"`
	CancelledByClose   int64 `json:"cancelled_by_close"`
	CancelledByNotify  int64 `json:"cancelled_by_notification"`
	NeverCancelled     int64 `json:"never_cancelled"`
	GaveUp             int64 `json:"gave_up"`
	Reissued           int64 `json:"reissued"`
	ReissuedSameID     int64 `json:"reissued_same_id"`
	RetryAfterHonoured int64 `json:"retry_after_honoured"`
	RetryAfterIgnored  int64 `json:"retry_after_ignored"`
	// UpstreamErrors counts the calls the upstream failed (unreachable,
	// an answer over the proxy's message size): not the client's doing.
	UpstreamErrors int64 `json:"upstream_errors"`
	// DuplicateIDs counts the calls a client sent with the id of one of
	// its calls still in flight: a JSON-RPC violation by the client.
	DuplicateIDs int64 `json:"duplicate_ids"`
	// Disconnected counts the calls the disconnect fault cut, and
	// AfterDisconnect what their clients did next.
	Disconnected    int64           `json:"disconnected"`
	AfterDisconnect AfterDisconnect `json:"after_disconnect"`
	CancelAfterMs   Percentiles     `json:"cancel_after_ms"`
	HeldMs          Percentiles     `json:"held_ms"`
}

// AfterDisconnect is what clients did after the proxy cut a call
// (the proxy's aftercut.go): re-issued it, cancelled it later (hung on
// the dead stream until a timeout of their own), went on to another call
// without it (gave up), or nothing within the proxy's hold (silent).
type AfterDisconnect struct {
	Reissued int64 `json:"reissued"`
	Hung     int64 `json:"hung"`
	GaveUp   int64 `json:"gave_up"`
	Silent   int64 `json:"silent"`
}

// Percentiles are percentiles of a distribution, in milliseconds.
type Percentiles struct {
	P50   float64 `json:"p50"`
	P99   float64 `json:"p99"`
	Max   float64 `json:"max"`
	Count int64   `json:"count"`
}

// percentiles returns p50, p99 and the exact maximum of h in milliseconds.
func percentiles(h *report.Durations) Percentiles {
	if h.Count() == 0 {
		return Percentiles{}
	}
	return Percentiles{P50: h.Ms(50), P99: h.Ms(99), Max: h.Ms(100), Count: h.Count()}
}

// WriteText writes the summary as text, one fact a line, every string
// escaped (termsafe.Copy).
func (s *Summary) WriteText(w io.Writer) error {
	s = termsafe.Copy(s)
	c := s.Clients
	_, err := fmt.Fprintf(w, `mcpchaos proxy %s (listen %s, seed %d)
  calls               %d
  cancelled           %d (stream closed %d, notification %d)
  cancel after        p50 %s  p99 %s  max %s
  never cancelled     %d (held p50 %s, max %s)
  gave up             %d (2025: closed the stream, no cancel)
  re-issued           %d (same id %d)
  Retry-After         honoured %d, ignored %d
  disconnected        %d (then re-issued %d, hung until a cancel %d, gave up %d, silent %d)
  upstream errors     %d
  duplicate ids       %d (calls sent with the id of the client's call in flight: a JSON-RPC violation)
`, s.Name, s.Listen, s.Seed, c.Calls, c.Cancelled, c.CancelledByClose, c.CancelledByNotify,
		report.FormatMs(c.CancelAfterMs.P50), report.FormatMs(c.CancelAfterMs.P99), report.FormatMs(c.CancelAfterMs.Max),
		c.NeverCancelled, report.FormatMs(c.HeldMs.P50), report.FormatMs(c.HeldMs.Max), c.GaveUp,
		c.Reissued, c.ReissuedSameID, c.RetryAfterHonoured, c.RetryAfterIgnored,
		c.Disconnected, c.AfterDisconnect.Reissued, c.AfterDisconnect.Hung, c.AfterDisconnect.GaveUp, c.AfterDisconnect.Silent,
		c.UpstreamErrors, c.DuplicateIDs)
	if err != nil {
		return fmt.Errorf("write proxy summary: %w", err)
	}
	for _, k := range slices.Sorted(maps.Keys(s.Faults)) {
		if _, err := fmt.Fprintf(w, "  injected %-11s %d\n", k, s.Faults[k]); err != nil {
			return fmt.Errorf("write proxy summary: %w", err)
		}
	}
	return nil
}
