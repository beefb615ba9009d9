package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"runtime/pprof"
	"sync"
	"syscall"
	"time"
)

// Where a run's memory goes, for sizing and for the scale benchmarks
// (docs/performance.md): with MCPCHAOS_MEMPROFILE=FILE in the environment,
// `mcpchaos run` writes, MCPCHAOS_MEMPROFILE_AT (default 30s) after the
// load is started and again on every SIGUSR1 (each time over the last):
//
//	FILE             the heap profile (go tool pprof -sample_index=inuse_space)
//	FILE.goroutines  the goroutines, grouped by stack, with their counts
//	FILE.memstats    the runtime's memory statistics: heap, stacks, goroutines
//
// It is a diagnosis, not a feature of the run: nothing else changes.
const (
	envMemProfile   = "MCPCHAOS_MEMPROFILE"
	envMemProfileAt = "MCPCHAOS_MEMPROFILE_AT"
	// envMemProfileGC, when set, adds to FILE.memstats the heap and the
	// stacks after each of three forced collections, and writes the heap
	// profile after them to FILE.aftergc (the run's own memory is then no
	// longer what it would have been: a diagnosis only).
	envMemProfileGC = "MCPCHAOS_MEMPROFILE_GC"
)

// memProfileLater arms the profile when the environment asks for one and
// returns what stops it (a run that ends first writes none).
func memProfileLater(stderr io.Writer) (stop func()) {
	path := os.Getenv(envMemProfile)
	if path == "" {
		return func() {}
	}
	at := 30 * time.Second
	if v := os.Getenv(envMemProfileAt); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 {
			fmt.Fprintf(stderr, "mcpchaos run: %s=%q: want a duration such as 30s; profiling at %v\n", envMemProfileAt, v, at)
		} else {
			at = d
		}
	}
	var mu sync.Mutex
	write := func() {
		mu.Lock()
		defer mu.Unlock()
		if err := writeMemProfile(path); err != nil {
			fmt.Fprintf(stderr, "mcpchaos run: %s: %v\n", envMemProfile, err)
			return
		}
		fmt.Fprintf(stderr, "mcpchaos run: memory profile written to %s (and .goroutines, .memstats)\n", path)
	}
	t := time.AfterFunc(at, write)
	usr1 := make(chan os.Signal, 1)
	signal.Notify(usr1, syscall.SIGUSR1)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-usr1:
				write()
			case <-done:
				return
			}
		}
	}()
	return func() {
		t.Stop()
		signal.Stop(usr1)
		close(done)
	}
}

// writeMemProfile writes the three files of a memory profile.
func writeMemProfile(path string) error {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	goroutines := runtime.NumGoroutine()
	if err := writeProfile(path, "heap", 0); err != nil {
		return err
	}
	if err := writeProfile(path+".goroutines", "goroutine", 1); err != nil {
		return err
	}
	f, err := os.Create(path + ".memstats")
	if err != nil {
		return fmt.Errorf("create %q: %w", path+".memstats", err)
	}
	fmt.Fprintf(f, "goroutines %d\nheap_alloc %d\nheap_inuse %d\nheap_idle %d\nheap_released %d\nnext_gc %d\n"+
		"stack_inuse %d\nmspan_inuse %d\ngc_sys %d\nother_sys %d\nsys %d\nnum_gc %d\n",
		goroutines, ms.HeapAlloc, ms.HeapInuse, ms.HeapIdle, ms.HeapReleased, ms.NextGC,
		ms.StackInuse, ms.MSpanInuse, ms.GCSys, ms.OtherSys, ms.Sys, ms.NumGC)
	if os.Getenv(envMemProfileGC) != "" {
		// What collections would give back: each halves the stacks that
		// use under a quarter of theirs.
		for i := 1; i <= 3; i++ {
			runtime.GC()
			runtime.ReadMemStats(&ms)
			fmt.Fprintf(f, "after_gc%d heap_alloc %d stack_inuse %d\n", i, ms.HeapAlloc, ms.StackInuse)
		}
		if err := writeProfile(path+".aftergc", "heap", 0); err != nil {
			f.Close()
			return err
		}
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %q: %w", path+".memstats", err)
	}
	return nil
}

func writeProfile(path, name string, debug int) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("create %q: %w", path, err)
	}
	if err := pprof.Lookup(name).WriteTo(f, debug); err != nil {
		f.Close()
		return fmt.Errorf("write the %s profile to %q: %w", name, path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %q: %w", path, err)
	}
	return nil
}
