package summary

import "fmt"

// CPUBound is what the server's CPU-bound threads did: those whose mean
// time slice was at least 0.3 ms over the load (ProcessCPU,
// probes.LoadSlice) or 0.2 ms over a quiet window's measurement (Window,
// probes.WindowSlice).
type CPUBound struct {
	// OnCPUS is their time on a CPU and WaitS their time runnable but
	// waiting for one (schedstat); Threads how many there were.
	OnCPUS  float64 `json:"on_cpu_s"`
	WaitS   float64 `json:"wait_s"`
	Threads int     `json:"threads"`
	// Slices are their time slices and Preempted the slices the kernel
	// ended while they could still run (-1: unknown).
	Slices    int64 `json:"slices"`
	Preempted int64 `json:"preempted"`
	// MaxSliceMs is the longest mean slice of any thread of the process
	// that ran twice or more (informative).
	MaxSliceMs float64 `json:"max_slice_ms"`
	// LongestSliceMs is the longest mean slice of any thread, one that ran
	// once (or through the whole measurement) counted as one slice.
	LongestSliceMs float64 `json:"longest_slice_ms"`
	// AllSlices and AllPreempted are the same counts for every thread of
	// the process (informative).
	AllSlices    int64 `json:"all_slices"`
	AllPreempted int64 `json:"all_preempted"`
	// WantedPerCallS (over the load only) is OnCPUS + WaitS per second of
	// a live call: what the tools asked of the CPU, the CPU-bound
	// counterpart of ProcessCPU.PerCallS.
	WantedPerCallS float64 `json:"wanted_per_call_s"`
}

// preemptedShare is the least share of the CPU-bound threads' slices the
// kernel must have ended for their wait to count as wanting the CPU: a
// thread that computes is preempted at the end of most of its slices.
const preemptedShare = 0.5

// Wanted reports whether the CPU-bound threads preempted at the end of
// most of their slices waited for the CPU: then their time waiting is work
// they asked for (with Preempted unknown, the slices' length alone says
// it).
func (b CPUBound) Wanted() bool {
	if b.Threads == 0 || b.Slices <= 0 {
		return false
	}
	return b.Preempted < 0 || float64(b.Preempted) >= preemptedShare*float64(b.Slices)
}

// ExtensionNote says that the load was extended for more windows, and
// why; "" when it was not.
func ExtensionNote(w Windows) string {
	if w.Extensions == 0 {
		return ""
	}
	return fmt.Sprintf("; the load extended by %s for %s more, the evidence being weak: %s",
		fmtMs(w.ExtendedMs), plural(w.Extensions, "window"), w.Extended)
}
