package bench

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// rateWatch reads the client process every 100 ms (VmRSS, VmHWM, open
// fds, the CPU of its children) and the server's in-flight gauge every
// 50 ms.
type rateWatch struct {
	samples  []rateSample
	gauge    []gaugeSample
	mu       sync.Mutex
	childCPU map[int]time.Duration // the most read of each child's CPU
}

type rateSample struct {
	at             time.Duration
	rssKiB, hwmKiB int64
	fds            int
}

func (w *rateWatch) watch(pid int, stop <-chan struct{}, metrics func(stop <-chan struct{}) string) {
	began := time.Now()
	var wg sync.WaitGroup
	wg.Go(func() {
		if url := metrics(stop); url != "" {
			w.gauge = scrapeInflight(url, began, stop, nil)
		}
	})
	for {
		rss, hwm, err := statusKiB(pid)
		fds, err2 := countFds(pid)
		if err != nil || err2 != nil {
			break
		}
		w.samples = append(w.samples, rateSample{at: time.Since(began), rssKiB: rss, hwmKiB: hwm, fds: fds})
		w.readChildren(pid)
		select {
		case <-stop:
		case <-time.After(100 * time.Millisecond):
			continue
		}
		break
	}
	wg.Wait()
}

// readChildren keeps the CPU time of each child of pid (the stdio
// server): its last reading before it exits is its CPU, within 100 ms.
func (w *rateWatch) readChildren(pid int) {
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
	for _, t := range tasks {
		raw, err := os.ReadFile(t)
		if err != nil {
			continue
		}
		for _, f := range strings.Fields(string(raw)) {
			child, err := strconv.Atoi(f)
			if err != nil {
				continue
			}
			if cpu, err := procCPU(child); err == nil {
				w.mu.Lock()
				if w.childCPU == nil {
					w.childCPU = map[int]time.Duration{}
				}
				w.childCPU[child] = max(w.childCPU[child], cpu)
				w.mu.Unlock()
			}
		}
	}
}

func (w *rateWatch) childrenCPU() time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	var sum time.Duration
	for _, c := range w.childCPU {
		sum += c
	}
	return sum
}

// hwmKiB is the client's peak RSS as last read.
func (w *rateWatch) hwmKiB() int64 {
	var most int64
	for _, s := range w.samples {
		most = max(most, s.hwmKiB)
	}
	return most
}

func (w *rateWatch) gaugeMax() int {
	most := 0
	for _, g := range w.gauge {
		most = max(most, g.v)
	}
	return most
}

// serverGot is the rate at which the server started calls through the
// load's seconds, from its started counter: from the first reading that
// saw a call to the last one within seconds of it. It is what the server
// was given, whoever fell behind: rate.achieved counts the ticks handed
// out, which a client short of CPU hands out on time and sends late.
func (w *rateWatch) serverGot(seconds int) (float64, bool) {
	first := -1
	for i, g := range w.gauge {
		if g.started > 0 {
			first = i
			break
		}
	}
	if first < 0 {
		return 0, false
	}
	t0, last := w.gauge[first].at, first
	for i := first; i < len(w.gauge) && w.gauge[i].at-t0 <= time.Duration(seconds)*time.Second; i++ {
		last = i
	}
	el := (w.gauge[last].at - t0).Seconds()
	if el < float64(seconds)/2 {
		return 0, false // too few readings to say
	}
	return float64(w.gauge[last].started) / el, true
}

// inflight returns the most calls the client had in flight at once and
// its RSS before they rose, when at least 500 were (fewer: RSS per call
// would be noise). Over HTTP/1.1 every call in flight holds a connection
// of its own, so it is the client's open fds over the fewest it had;
// over stdio the calls share one pipe, and it is the server's gauge.
func (w *rateWatch) inflight(transport string) (peak int, baseKiB int64, ok bool) {
	const meaningful = 500
	if len(w.samples) == 0 {
		return 0, 0, false
	}
	rose := time.Duration(-1) // when in flight first passed 50
	if transport == "stdio" {
		for _, g := range w.gauge {
			if g.v > 50 && rose < 0 {
				rose = g.at
			}
			peak = max(peak, g.v)
		}
	} else {
		low := w.samples[0].fds
		for _, s := range w.samples {
			low = min(low, s.fds)
		}
		for _, s := range w.samples {
			if s.fds > low+50 && rose < 0 {
				rose = s.at
			}
			peak = max(peak, s.fds-low)
		}
	}
	if peak < meaningful || rose < 0 {
		return peak, 0, false
	}
	baseKiB = w.samples[0].rssKiB
	for _, s := range w.samples {
		if s.at < rose {
			baseKiB = s.rssKiB
		}
	}
	return peak, baseKiB, true
}

// statusKiB reads a live process's VmRSS and VmHWM.
func statusKiB(pid int) (rss, hwm int64, err error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, _ := strings.Cut(sc.Text(), ":")
		n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		switch k {
		case "VmRSS":
			rss = n
		case "VmHWM":
			hwm = n
		}
	}
	if rss == 0 {
		return 0, 0, fmt.Errorf("no VmRSS for %d", pid)
	}
	return rss, hwm, nil
}
