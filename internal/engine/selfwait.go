package engine

import "github.com/mcpchaos/mcpchaos/report"

// A wait its own threads made each other (issue 25, December 7). A quiet
// window is starved (starved.go) when the server's threads waited for a
// CPU longer than its threshold while its leftover CPU stayed under its
// own: a server held off the CPU with a cut call's work pending burns
// next to nothing, and its window can tell nothing. But threads of the
// server can wait for each other too. Node's collector wakes five threads
// at once; on two CPUs three of them wait while two run. In issue 25's
// ramp (at 163d7e8) three TypeScript windows that cut nothing, or one
// call of a stopping server, ran 33–37 ms of CPU in a second in slices of
// 0.6–3.7 ms at the longest (0.07–0.26 of the load's), the kernel ending
// 30–46 % of them, and waited 30–44 ms: starved, so each run was
// not_observable where its log had no run-on. Begun inside the grace's
// tail, the collector kept them from being wait bursts (burst.go).
//
// Threads that wait only for each other wait at most while every CPU the
// server may use runs one of them: n threads on c CPUs wait at most
// (n - c) / c times their time on a CPU (the three windows: 0.55–0.88 of
// that). A server held off by other processes waits without running:
// its reader, one thread, waits while it runs nothing. So a starved
// window whose computing threads (window.CPUBound) are more than the
// server's CPUs and waited within selfWaitSlack times that bound, whose
// other threads waited no longer than the window's wait threshold, and
// whose slices are those of a slice burst (under sliceShare of the
// load's, the kernel ending under slicePreemptedPct % of them) is a wait
// burst, not starved. A Go server's computing threads held off by
// another process are preempted at the end of most slices; a node
// server's one computing thread is not more than its CPUs. The price: a
// server with more threads than CPUs, starved by another process, whose
// threads run short slices and give the CPU up themselves, waiting no
// more than that, reads as waiting for itself; so does a leak wanting
// about a tenth of a CPU beside a collector whose threads, rarely
// preempted, bring the share preempted under the bar (it is summed over
// the computing threads).
const selfWaitSlack = 1.25 // the kernel's balancing leaves a CPU idle for a moment while a thread waits

// judgeSelfWait makes w, a starved window, a wait burst when its wait is
// one its threads could have made each other on cpus CPUs (0: unknown,
// nothing judged), and its slices are a slice burst's.
func judgeSelfWait(w *report.Window, cpus int) {
	b := w.CPUBound
	if !w.Starved || cpus <= 0 || b == nil || b.Threads <= cpus || w.LoadSliceMs <= 0 || b.Slices <= 0 || b.Preempted < 0 {
		return
	}
	bound := selfWaitSlack * b.OnCPUS * float64(b.Threads-cpus) / float64(cpus)
	if b.WaitS > bound || w.RunWaitS-b.WaitS > w.WaitThresholdS || 100*b.Preempted >= slicePreemptedPct*b.Slices || b.LongestSliceMs >= sliceShare*w.LoadSliceMs {
		return
	}
	w.Starved, w.WaitBurst = false, true
}
