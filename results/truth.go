package results

import "time"

// The built-in target's records of what really happened upstream, per call
// marker (MarkerMeta), as `GET /calls` serves them. A gateway test joins
// them with the client's own records by marker.

// MarkerMeta is the _meta key under which every tools/call carries its
// marker, and under which the built-in target echoes it in the result.
const MarkerMeta = "dev.mcpchaos/call"

// TruthPage is one answer of `GET /calls?since=...`.
type TruthPage struct {
	// Now is the target's clock when it answered: the since of the next
	// read that wants only what changed afterwards.
	Now time.Time `json:"now"`
	// Calls are the records updated at or after since, oldest update
	// first, at most the page limit.
	Calls []TruthCall `json:"calls"`
	// More: there are more records than this page holds; ask again with
	// since = the Updated of the last one.
	More bool `json:"more,omitempty"`
	// Capacity is how many records the target keeps; Dropped how many it
	// has evicted since it started (oldest first), and Oldest the
	// creation of the oldest record it still holds.
	Capacity int       `json:"capacity"`
	Dropped  int64     `json:"dropped"`
	Oldest   time.Time `json:"oldest,omitzero"`
}

// TruthCall is one arrival of a marked tools/call at the target: an
// execution, or a call the rate limit refused (Throttled).
type TruthCall struct {
	// N numbers the target's records, from 1.
	N         uint64 `json:"n"`
	Marker    string `json:"marker"`
	RequestID string `json:"request_id,omitempty"` // as JSON: 17 or "abc"
	Tool      string `json:"tool,omitempty"`
	// Era is the protocol revision the call was spoken in.
	Era string `json:"era,omitempty"`
	// Transport is "http" or "stdio".
	Transport string    `json:"transport,omitempty"`
	Started   time.Time `json:"started"`
	Updated   time.Time `json:"updated"`
	// Throttled: refused by the rate limit; RetryAfterS is the Retry-After
	// (HTTP) or data.retryAfter (stdio) sent, in seconds.
	Throttled   bool `json:"throttled,omitempty"`
	RetryAfterS int  `json:"retry_after_s,omitempty"`
	// Progress are the notifications sent for the call (at most
	// MaxTruthProgress; ProgressDropped counts the rest).
	Progress        []TruthProgress `json:"progress,omitempty"`
	ProgressDropped int             `json:"progress_dropped,omitempty"`
	// Cancelled is when the handler learned of a cancel (a
	// notifications/cancelled or a propagated disconnect), whether or not
	// it then stopped; StreamClosed when the client's HTTP request ended
	// while the SDK did not tell the handler.
	Cancelled    time.Time `json:"cancelled,omitzero"`
	StreamClosed time.Time `json:"stream_closed,omitzero"`
	// Completed is when the call ran to its end and returned its result;
	// Ended when the handler returned, whatever the outcome.
	Completed time.Time `json:"completed,omitzero"`
	Ended     time.Time `json:"ended,omitzero"`
}

// TruthProgress is one progress notification the target sent.
type TruthProgress struct {
	Value float64   `json:"v"`
	At    time.Time `json:"t"`
}

// MaxTruthProgress bounds TruthCall.Progress.
const MaxTruthProgress = 128
