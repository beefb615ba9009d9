package summary

import "time"

// ProcessCPU is how a process probe's CPU readings were judged: which
// process it measured and how noisy that process was while idle.
type ProcessCPU struct {
	// Probe is the process probe's name: its entry of by_probe counts the
	// child processes still alive after the quiet window.
	Probe string `json:"probe"`
	// PID and Command name the process (tree root) measured; Command is
	// the first of its command line, "" when unreadable.
	PID     int    `json:"pid"`
	Command string `json:"command,omitempty"`
	// IdleRate is the mean CPU-seconds per second of the idle process
	// before the load, from several short samples; IdleNoise their
	// standard deviation (the noise band of one reading per second).
	IdleRate  float64 `json:"idle_rate"`
	IdleNoise float64 `json:"idle_noise"`
	// LoadRate is the process's CPU-seconds per second during the load,
	// above IdleRate: what live calls cost it. Near zero means the tools'
	// work is not CPU the probe can see (sleeping or waiting work).
	LoadRate float64 `json:"load_rate"`
	// PerCallS is that CPU per second of a live call (the client's calls
	// in flight, integrated over the load): what one running call costs
	// the process. Below 0.05 the tools' work is not CPU the probe can see.
	PerCallS float64 `json:"per_call_s"`
	// ThresholdS is the leftover CPU the final quiet window had to exceed
	// to count: max(an absolute floor, IdleNoise·k over the window, plus
	// one clock tick).
	ThresholdS float64 `json:"threshold_s"`
	// RunWaitRate is the run-queue wait per second of the load, above
	// idle, the process's threads had (schedstat: time they wanted a CPU
	// and did not get it); WaitPerSliceMs the mean wait each time a thread
	// was put on a CPU during the load. RunWait says why they are absent
	// (a kernel without schedstat). See starved.go.
	RunWaitRate    float64 `json:"run_wait_rate"`
	WaitPerSliceMs float64 `json:"wait_per_slice_ms"`
	RunWait        string  `json:"run_wait,omitempty"`
	// CPUBound is what its CPU-bound threads did over the load
	// (cpubound.go).
	CPUBound CPUBound `json:"cpu_bound"`
	// Tools, in a load of more than one tool, is each tool's CPU measured
	// while only its calls were in flight: PerCallS mixes the tools, so a
	// tool that computes would make one that sleeps look visible.
	Tools []ToolCPU `json:"tools,omitempty"`
}

// ToolCPU is one tool's CPU per second of a live call, from the sampling
// intervals in which only its calls were in flight.
type ToolCPU struct {
	Tool string `json:"tool"`
	// LiveS is its calls' live seconds in those intervals, MeasuredS the
	// intervals' length; both 0 when its calls never ran alone.
	LiveS     float64 `json:"live_s"`
	MeasuredS float64 `json:"measured_s"`
	// CPUS is the process's CPU above its idle rate in them, ± NoiseS
	// (each run of intervals is read to a clock tick at each end);
	// PerCallS is CPUS / LiveS.
	CPUS     float64 `json:"cpu_s"`
	NoiseS   float64 `json:"noise_s"`
	PerCallS float64 `json:"per_call_s"`
}

// Windows sums the quiet windows of orphans.windows.
type Windows struct {
	// Count is the number of windows taken; Cancelled the calls they
	// cancelled.
	Count     int `json:"count"`
	Cancelled int `json:"cancelled"`
	// Followed is the number of windows that began at a fault's cut
	// (automatic windows wait for one): each judged that cut's call too.
	Followed int `json:"followed"`
	// Auto: mcpchaos took these windows of its own accord, the process
	// probe being the only server-side evidence (engine/autowindows.go).
	Auto bool `json:"auto,omitempty"`
	// Extensions is how many times mcpchaos extended the load for one
	// more window, the windows so far clean on a machine short of CPU
	// (engine/extend.go); ExtendedMs the extension, Extended why.
	Extensions int     `json:"extensions"`
	ExtendedMs float64 `json:"extended_ms"`
	Extended   string  `json:"extended,omitempty"`
	// SkippedTicks were due while the pacer paused: not offered, so not
	// counted as scheduled or dropped.
	SkippedTicks int `json:"skipped_ticks"`
	// LeftoverCPUS is the CPU, above the idle rate, the server used in the
	// windows' measurements, summed; NoiseCPUS is the idle noise band of
	// that sum (IdleNoise·measured seconds): the estimate is ± that.
	LeftoverCPUS float64 `json:"leftover_cpu_s"`
	NoiseCPUS    float64 `json:"noise_cpu_s"`
	// Above is the number of windows whose leftover CPU exceeded their
	// threshold, or whose count probes read above baseline.
	Above int `json:"above"`
	// Quiet is the number of windows that cut nothing and stayed under
	// their threshold; QuietNoiseRate the most CPU-s per second above idle
	// one of them measured: the server's noise under the run's conditions,
	// which raises the threshold of the windows after it.
	Quiet          int     `json:"quiet"`
	QuietNoiseRate float64 `json:"quiet_noise_rate"`
	// OrphanedMax is the most calls a count probe saw above its baseline
	// in any window.
	OrphanedMax float64 `json:"orphaned_max"`
	// CutCount is the number of windows that cut calls; CutLeftoverCPUS
	// their leftover CPU summed, CutThresholdS the threshold of that sum
	// (summed.go in engine): many weak windows together are evidence when
	// none alone is.
	CutCount        int     `json:"cut_count"`
	CutLeftoverCPUS float64 `json:"cut_leftover_cpu_s"`
	CutThresholdS   float64 `json:"cut_threshold_s"`
	// Starved is the number of windows in which the server was starved of
	// CPU (Window.Starved): evidence of neither stopping nor leaking.
	Starved int `json:"starved"`
	// Bursts is the number of windows whose leftover CPU was a burst
	// (Window.Burst): not counted.
	Bursts int `json:"bursts"`
	// SliceBursts is how many of those were slice bursts
	// (Window.SliceBurst).
	SliceBursts int `json:"slice_bursts"`
	// WaitBursts is the number of windows whose run-queue wait was a
	// burst (Window.WaitBurst): not counted as starved.
	WaitBursts int `json:"wait_bursts"`
	// TasksRunningOn is the number of windows measured while a task ran
	// on after its tasks/cancel (Window.TasksRunningOn): not counted.
	TasksRunningOn int      `json:"tasks_running_on"`
	MeasuredMs     float64  `json:"measured_ms"` // the windows' measurements, summed
	List           []Window `json:"list,omitempty"`
}

// Window is one quiet window.
type Window struct {
	// StartMs is when the pacer paused, after the load began.
	StartMs   float64 `json:"start_ms"`
	Cancelled int     `json:"cancelled"`
	// FollowedCut: the window began at a fault's cut, whose call it
	// judged beside the ones it cut.
	FollowedCut bool `json:"followed_cut,omitempty"`
	// MeasuredFrom is when the measurement began (after the grace);
	// MeasuredMs how long it lasted.
	MeasuredFrom time.Time `json:"measured_from"`
	MeasuredMs   float64   `json:"measured_ms"`
	LeftoverCPUS float64   `json:"leftover_cpu_s"`
	ThresholdS   float64   `json:"threshold_s"`
	Orphaned     float64   `json:"orphaned"`
	// GraceCPUS is the CPU above idle the server used from when the
	// window's cancels were out to the measurement (GraceMs, the grace):
	// a server that stops at a cancel goes quiet in it, one that goes on
	// with the cut calls does not.
	GraceCPUS float64 `json:"grace_cpu_s,omitempty"`
	GraceMs   float64 `json:"grace_ms,omitempty"`
	// RunWaitS is the run-queue wait above idle the server's threads had
	// in the measurement (schedstat): time they wanted a CPU and did not
	// get it. Starved: the leftover CPU stayed under the threshold but the
	// wait exceeded it (WaitThresholdS): the server wanted to work and
	// could not, so the window shows neither that it stopped nor that it
	// went on.
	RunWaitS       float64 `json:"run_wait_s,omitempty"`
	WaitThresholdS float64 `json:"wait_threshold_s,omitempty"`
	Starved        bool    `json:"starved,omitempty"`
	// OnCPUS is the time the server's threads ran in the measurement, to
	// the nanosecond (schedstat; not above idle), and Slices the times a
	// thread was put on a CPU: CPU-bound work runs whole time slices,
	// wake-ups of an idle runtime a few microseconds. Informative: the
	// data to judge a starved window by (docs/decisions.md).
	OnCPUS float64 `json:"on_cpu_s,omitempty"`
	Slices int64   `json:"slices,omitempty"`
	// CPUBound is what the server's CPU-bound threads did in the
	// measurement (cpubound.go); informative (their wait told a server
	// that stopped in time from one that ran on no better than the whole
	// process's wait, docs/decisions.md), but for its LongestSliceMs (of
	// every thread) and the computing threads' Slices and Preempted, which
	// judge a slice burst, and their OnCPUS, WaitS and Threads, which judge
	// a wait they made each other (engine/selfwait.go).
	CPUBound *CPUBound `json:"cpu_bound,omitempty"`
	// TailCPUS is the time the server's threads ran in the last TailMs of
	// the grace (schedstat). Burst: the leftover CPU was over the
	// threshold but the tail ran under a quarter of the measurement's
	// rate, or under a floor (the idle rate plus 2 % of a CPU, or the
	// windows' quiet noise, at most the threshold's rate): work a cut
	// call goes on with runs through the end of the grace, and CPU that
	// begins after an idle tail is something new (a runtime collecting
	// garbage once the load stops, a timer). A burst is not counted above
	// the threshold (engine/burst.go).
	TailCPUS float64 `json:"tail_cpu_s,omitempty"`
	TailMs   float64 `json:"tail_ms,omitempty"`
	Burst    bool    `json:"burst,omitempty"`
	// TailWaitS is the run-queue wait of the server's threads in the
	// grace's tail. WaitBurst: the window's wait was over its threshold,
	// but the tail wanted the CPU (on it or waiting) under a quarter of
	// the measurement's rate, or under a floor (the idle rate and wait
	// plus 2 % of a CPU, or the windows' quiet noise): a server held off
	// the CPU with a cut call's work pending wanted it through the grace's
	// end too, so the wait is something new and the window is not starved
	// (engine/burst.go). Also a wait burst: a window whose computing
	// threads, more than the server's CPUs and in a slice burst's slices,
	// waited no longer than they could have made each other wait
	// (engine/selfwait.go).
	TailWaitS float64 `json:"tail_wait_s,omitempty"`
	WaitBurst bool    `json:"wait_burst,omitempty"`
	// SliceBurst: the leftover CPU, at most a quarter of a CPU, was over
	// the threshold but came only in time slices (CPUBound.LongestSliceMs)
	// under half of LoadSliceMs, the longest mean slice of the thread that
	// led the load before the window (probes.LeadSliceMs), from computing
	// threads the kernel preempted at the end of under 60 % of their
	// slices: a runtime's own work on its threads (a collector). It is a
	// burst too: not counted (engine/burst.go).
	SliceBurst  bool    `json:"slice_burst,omitempty"`
	LoadSliceMs float64 `json:"load_slice_ms,omitempty"`
	// TasksRunningOn is how many tasks worked on after their tasks/cancel
	// during the measurement (allowed: cancelling a task is cooperative):
	// the window's CPU and counts may be theirs, so it is not judged.
	TasksRunningOn int `json:"tasks_running_on,omitempty"`
}

// Above reports whether the window showed leftover work: a count probe
// above its baseline, or leftover CPU over the threshold that is not a
// burst.
func (w Window) Above() bool {
	if w.TasksRunningOn > 0 {
		return false
	}
	return w.Orphaned > 0 || (!w.Burst && w.ThresholdS > 0 && w.LeftoverCPUS > w.ThresholdS)
}
