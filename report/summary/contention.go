package summary

// ContentionHorizonGraces is how many graces after its cut the engine
// follows a projected cut: one not done by then ends there, "not done".
const ContentionHorizonGraces = 3

// Contention is the projection of the faults' cuts through the load's
// contention (internal/engine/projection.go): the work one cut call costs
// the server after its cut, as the quiet windows measured it, run through
// each sampling interval of the load at the share of a CPU a call then
// got. Made when the process probe is the only server-side evidence and a
// window measured that work; absent otherwise.
type Contention struct {
	// WorkPerCutS is the CPU-s a cut call cost the server after its cut
	// (the median over the Windows quiet windows that cut calls).
	WorkPerCutS float64 `json:"work_per_cut_s"`
	Windows     int     `json:"windows"`
	// Cuts is how many of the faults' cuts were projected; Contended how
	// many of them met an interval where the server was short of CPU;
	// PastGrace how many ended later than GraceMs + MarginMs after their
	// cut.
	Cuts      int     `json:"cuts"`
	Contended int     `json:"contended"`
	PastGrace int     `json:"past_grace"`
	GraceMs   float64 `json:"grace_ms"`
	MarginMs  float64 `json:"margin_ms"`
	// The cut projected to end the latest: WorstAtMs into the load, ended
	// WorstEndMs after its cut, its least share of a CPU WorstShare, with
	// WorstLive calls of the client's in flight beside it then (on average).
	WorstAtMs  float64 `json:"worst_at_ms"`
	WorstEndMs float64 `json:"worst_end_ms"`
	WorstShare float64 `json:"worst_share"`
	WorstLive  float64 `json:"worst_live"`
}
