package summary

// CutPings is what the pings sent right after each cut over HTTP showed
// (internal/engine/cutping.go): whether the server answered within the grace, so
// that it had the CPU to see the cut in time. Sent only when the process
// probe is the only server-side evidence.
type CutPings struct {
	// Cuts is how many cuts a ping was sent after; Late how many of them
	// had its answer later than cut + grace (less mcpchaos's own stalls),
	// Unanswered (counted in Late) none within 5 s.
	Cuts       int `json:"cuts"`
	Late       int `json:"late"`
	Unanswered int `json:"unanswered"`
	// WorstMs is the longest time from a cut to its ping's answer, less
	// our own stalls; GraceMs the grace it was held against.
	WorstMs float64 `json:"worst_ms"`
	GraceMs float64 `json:"grace_ms"`
}
