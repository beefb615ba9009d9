package bench

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// soakProfiles arms the soak's heap profiles: with
// MCPCHAOS_BENCH_MEMPROFILE=DIR the client writes one (see
// cmd/mcpchaos/memprofile.go) at 1 minute and at a minute before the load
// ends, DIR/soak-1m0s.pprof and DIR/soak-9m0s.pprof for a 10-minute soak
// (each with its .goroutines and .memstats), to compare with
// `go tool pprof -sample_index=inuse_space -base DIR/soak-1m0s.pprof DIR/soak-9m0s.pprof`.
// It returns the environment to add to the run and what the watcher calls
// with the client's pid (nil without the variable).
func soakProfiles(b *testing.B, dur time.Duration) (env []string, take func(pid int, stop <-chan struct{})) {
	dir := os.Getenv("MCPCHAOS_BENCH_MEMPROFILE")
	if dir == "" {
		return nil, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatalf("MCPCHAOS_BENCH_MEMPROFILE=%q: %v", dir, err)
	}
	path := filepath.Join(dir, "soak.pprof")
	ats := []time.Duration{time.Minute, dur - time.Minute}
	b.Logf("soak: heap profiles at %v into %s", ats, dir)
	return []string{"MCPCHAOS_MEMPROFILE=" + path, "MCPCHAOS_MEMPROFILE_AT=1000h"}, func(pid int, stop <-chan struct{}) {
		began := time.Now()
		for _, at := range ats {
			select {
			case <-stop:
				return
			case <-time.After(time.Until(began.Add(at))):
			}
			if err := soakProfile(pid, path, fmt.Sprintf("soak-%v", at), stop); err != nil {
				b.Logf("soak: heap profile at %v: %v", at, err)
			}
		}
	}
}

// soakProfile asks the client for a profile (SIGUSR1), waits until its
// last file, .memstats, is whole, and renames the three files to name.
func soakProfile(pid int, path, name string, stop <-chan struct{}) error {
	_ = os.Remove(path + ".memstats")
	if err := syscall.Kill(pid, syscall.SIGUSR1); err != nil {
		return fmt.Errorf("signal %d: %w", pid, err)
	}
	deadline := time.After(time.Minute)
	for {
		if raw, err := os.ReadFile(path + ".memstats"); err == nil && strings.Contains(string(raw), "num_gc") {
			break
		}
		select {
		case <-stop:
			return fmt.Errorf("the run ended before %s.memstats was written", path)
		case <-deadline:
			return fmt.Errorf("no %s.memstats a minute after the signal", path)
		case <-time.After(200 * time.Millisecond):
		}
	}
	dir := filepath.Dir(path)
	for _, ext := range []string{"", ".goroutines", ".memstats"} {
		if err := os.Rename(path+ext, filepath.Join(dir, name+".pprof"+ext)); err != nil {
			return err
		}
	}
	return nil
}
