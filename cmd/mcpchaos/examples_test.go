package main

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/scenarios"
	"github.com/mcpchaos/mcpchaos/results"
)

// TestExamples loads every scenario in examples/ and its folders
// (examples/gateways) and runs it briefly against the builtin target: an
// example must be valid and must run (exit 0 or 1, never 2; 130 when the
// test had to interrupt it). One whose target is not builtin is only
// loaded here (the gateway examples run in e2e/nginx_test.go). New
// examples are picked up by the globs.
func TestExamples(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("../../examples/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	more, err := filepath.Glob("../../examples/*/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range more {
		// Proxy files are not scenarios: package proxy loads them.
		if filepath.Base(filepath.Dir(f)) != "proxy" {
			files = append(files, f)
		}
	}
	if len(files) == 0 {
		t.Fatal("no examples found in ../../examples")
	}
	for _, file := range files {
		name, _ := filepath.Rel("../../examples", file)
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			sc, err := scenarios.Load(file)
			if err != nil {
				t.Fatalf("the example does not load:\n%v", err)
			}
			if sc.Target.Builtin == nil {
				t.Skipf("skipping: the target is %s, not builtin; it needs a server this test does not have", sc.Target)
			}
			args := []string{"run", file, "--duration", "1s", "-q"}
			// --duration sets the hold after the stages: long stages are
			// replaced by a constant rate (their peak, bounded).
			if stages := sc.Load.TotalDuration() - sc.Load.Duration.Std(); stages > 2*time.Second {
				peak := 0.0
				for at := time.Duration(0); at < sc.Load.TotalDuration(); at += 100 * time.Millisecond {
					peak = max(peak, sc.Load.RateAt(at))
				}
				args = append(args, "--rate", fmt.Sprintf("%d/1s", max(1, min(int(peak), 50))))
				t.Logf("stages of %s replaced by --rate %s", stages, args[len(args)-1])
			}
			out := filepath.Join(t.TempDir(), "r.jsonl")
			args = append(args, "--output", out)
			// Long calls could hold the graceful stop for the scenario's
			// full period: an interrupt after a while still writes every
			// output, and is what a user would do.
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			code, stdout, stderr := runCLI(t, ctx, args...)
			switch {
			case ctx.Err() != nil && code != exitInterrupted:
				t.Fatalf("interrupted after 20 s: exit code %d, want %d\nstdout: %s\nstderr: %s", code, exitInterrupted, stdout, stderr)
			case ctx.Err() != nil:
				t.Logf("interrupted after 20 s")
			case code != 0 && code != 1:
				t.Fatalf("exit code %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
			}
			f, err := results.Open(out)
			if err != nil {
				t.Fatal(err)
			}
			if f.Header.Scenario != sc.Name || f.Trailer == nil || len(f.Records) == 0 {
				t.Errorf("results: header %q, trailer %v, %d records", f.Header.Scenario, f.Trailer != nil, len(f.Records))
			}
			t.Logf("exit %d, %d records", code, len(f.Records))
		})
	}
}
