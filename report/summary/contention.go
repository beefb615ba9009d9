package summary

// ContentionHorizonGraces is how many graces after its cut a projected cut
// ends at most: one whose work would take longer ends there.
const ContentionHorizonGraces = 3

// GoesOnShare is the least share of what the quiet windows' cuts had left
// (Contention.DoneShare) that a server must be seen doing after them for
// its cuts to be projected: measured against the step servers' logs, the
// ones that stop did at most 0.13 of it, the ones that go on 0.45 or more
// (docs/decisions.md).
const GoesOnShare = 0.3

// Contention is the projection of the faults' cuts through the load's pace
// (internal/engine/projection.go): the quiet windows measure how much of
// what their cuts had left the server went on doing; for a server that
// goes on, each fault's cut is given what its call had left (its progress
// total less its last value) at the pace its entry's other calls kept
// while it ran on. Made when the process probe is the only server-side
// evidence and a window measured what a cut costs; absent otherwise.
type Contention struct {
	// WorkPerCutS is the CPU-s a cut call cost the server after its cut
	// (the median over the Windows quiet windows that cut calls).
	WorkPerCutS float64 `json:"work_per_cut_s"`
	Windows     int     `json:"windows"`
	// DoneShare is the share of what the windows' cuts had left (at their
	// entries' quickest pace) that the server did in their graces, the
	// median over the windows; -1 when no window's cuts had a known
	// amount left. Under GoesOnShare the server stops, and nothing is
	// projected.
	DoneShare float64 `json:"done_share"`
	// Cuts is how many of the faults' cuts were projected, Unpaced how
	// many could not be (their entry kept no pace around them, or what
	// they had left is not known); Contended how many ran on at a pace a
	// quarter or more slower than their entry's quickest; PastGrace how
	// many ended later than GraceMs after their cut. Blind and
	// PastGraceBlind are the same counts of cuts after which nothing on the
	// wire can follow (Streamable HTTP in 2026-07-28): the verdict's
	// evidence.
	Cuts           int     `json:"cuts"`
	Unpaced        int     `json:"unpaced"`
	Contended      int     `json:"contended"`
	PastGrace      int     `json:"past_grace"`
	Blind          int     `json:"blind"`
	PastGraceBlind int     `json:"past_grace_blind"`
	GraceMs        float64 `json:"grace_ms"`
	// The cut projected to end the latest: WorstAtMs into the load, ended
	// WorstEndMs after its cut, with WorstLeft units of progress left at a
	// pace of WorstPaceMs a unit, where its entry's quickest was
	// QuickPaceMs.
	WorstAtMs   float64 `json:"worst_at_ms"`
	WorstEndMs  float64 `json:"worst_end_ms"`
	WorstLeft   float64 `json:"worst_left"`
	WorstPaceMs float64 `json:"worst_pace_ms"`
	QuickPaceMs float64 `json:"quick_pace_ms"`
}
