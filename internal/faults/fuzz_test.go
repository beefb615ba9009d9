package faults_test

import (
	"testing"

	"github.com/mcpchaos/mcpchaos/internal/faults"
	"github.com/mcpchaos/mcpchaos/internal/scenarios"
)

// FuzzNew feeds arbitrary fault entries to the kinds' decoders: New must
// never panic, and returns either a fault or an error, never both or
// neither.
func FuzzNew(f *testing.F) {
	for _, s := range []string{
		"{kind: cancel, after: 1s, also_notify: true}",
		"{kind: disconnect, after_progress: 2, mode: rst}",
		"{kind: cancel_race, before_end: 50ms}",
		"{kind: stall_read, after: exp(1s), for: 2s}",
		"{kind: malformed, mode: oversize, size: 2MiB}",
		"{kind: reissue, max: 3}",
		"{kind: notify_flood, rate: 10/s}",
		"{kind: cancel_unknown, rate: 1/1m, tools: [x]}",
		"{kind: cancl, at: [1, {a: b}]}",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, entry string) {
		src := "target: {builtin: {}}\nload: {rate: 1/s, duration: 1s}\ncalls: [{tool: slow_task}]\nfaults: [" + entry + "]\n"
		sc, err := scenarios.Parse("fuzz.yaml", []byte(src))
		if err != nil || len(sc.Faults) == 0 {
			return
		}
		for _, tr := range []string{"http", "stdio"} {
			ft, err := faults.New(sc.Faults[0], tr)
			if (ft == nil) == (err == nil) {
				t.Fatalf("%s: fault %v and error %v", entry, ft, err)
			}
			if err != nil && err.Error() == "" {
				t.Fatal("empty error message")
			}
		}
	})
}
