package report

import (
	"fmt"
	"io"
	"time"
)

// ProxySummary is what `mcpchaos proxy` reports about the clients that
// went through it: how many calls, how many the clients cancelled and
// after how long, how many they left hanging until the proxy's hold, how
// many they re-issued and whether they waited out a Retry-After.
type ProxySummary struct {
	Name    string         `json:"name"`
	Seed    int64          `json:"seed"`
	Listen  string         `json:"listen"`
	Clients ProxyClients   `json:"clients"`
	Faults  map[string]int `json:"faults"` // injections by kind
}

// ProxyClients are the summary's clients.* keys.
type ProxyClients struct {
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
	Disconnected    int64                `json:"disconnected"`
	AfterDisconnect ProxyAfterDisconnect `json:"after_disconnect"`
	CancelAfterMs   ProxyPercentiles     `json:"cancel_after_ms"`
	HeldMs          ProxyPercentiles     `json:"held_ms"`
}

// ProxyAfterDisconnect is what clients did after the proxy cut a call
// (the proxy's aftercut.go): re-issued it, cancelled it later (hung on
// the dead stream until a timeout of their own), went on to another call
// without it (gave up), or nothing within the proxy's hold (silent).
type ProxyAfterDisconnect struct {
	Reissued int64 `json:"reissued"`
	Hung     int64 `json:"hung"`
	GaveUp   int64 `json:"gave_up"`
	Silent   int64 `json:"silent"`
}

// ProxyPercentiles are percentiles of a distribution, in milliseconds.
type ProxyPercentiles struct {
	P50   float64 `json:"p50"`
	P99   float64 `json:"p99"`
	Max   float64 `json:"max"`
	Count int64   `json:"count"`
}

// ProxyHistogram collects durations for ProxyPercentiles, with the same
// HdrHistogram as the run's histograms (microseconds, 1 µs to 1 h).
type ProxyHistogram struct{ h *hist }

// NewProxyHistogram returns an empty histogram.
func NewProxyHistogram() *ProxyHistogram {
	return &ProxyHistogram{h: newHist(int64(time.Hour / time.Microsecond))}
}

// Record adds one duration.
func (p *ProxyHistogram) Record(d time.Duration) { p.h.record(d.Microseconds()) }

// Percentiles returns p50, p99 and the exact maximum in milliseconds.
func (p *ProxyHistogram) Percentiles() ProxyPercentiles {
	if p.h.count() == 0 {
		return ProxyPercentiles{}
	}
	return ProxyPercentiles{P50: usToMs(p.h.quantile(50)), P99: usToMs(p.h.quantile(99)), Max: usToMs(p.h.max), Count: p.h.count()}
}

// WriteProxyText writes the summary as text, one fact a line, every
// string escaped (textsafe.go).
func WriteProxyText(w io.Writer, s *ProxySummary) error {
	s = textSafe(s)
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
		fmtMs(c.CancelAfterMs.P50), fmtMs(c.CancelAfterMs.P99), fmtMs(c.CancelAfterMs.Max),
		c.NeverCancelled, fmtMs(c.HeldMs.P50), fmtMs(c.HeldMs.Max), c.GaveUp,
		c.Reissued, c.ReissuedSameID, c.RetryAfterHonoured, c.RetryAfterIgnored,
		c.Disconnected, c.AfterDisconnect.Reissued, c.AfterDisconnect.Hung, c.AfterDisconnect.GaveUp, c.AfterDisconnect.Silent,
		c.UpstreamErrors, c.DuplicateIDs)
	if err != nil {
		return fmt.Errorf("write proxy summary: %w", err)
	}
	for _, k := range sortedKeys(s.Faults) {
		if _, err := fmt.Fprintf(w, "  injected %-11s %d\n", k, s.Faults[k]); err != nil {
			return fmt.Errorf("write proxy summary: %w", err)
		}
	}
	return nil
}
