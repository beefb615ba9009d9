package bench

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/results"
)

// BenchmarkMergeShards times `mcpchaos report --same-scenario` (the real
// binary, in its own process) merging the results files of 100 shards,
// each of 2,000 calls/s for MERGE_SECONDS seconds (default 10: 2,000,000
// calls in all), and reports its wall time, CPU seconds and peak RSS. The
// files are generated as a sharded run of a shared server writes them:
// shard i holds the seqs i, i+100, ..., scheduled on one global timeline
// of 200,000 calls/s, a probe sample every 100 ms at its own instants, and
// a trailer that leaves the leaked call-seconds to the merge (the samples
// it holds are the merge's only memory that grows with shards × seconds).
func BenchmarkMergeShards(b *testing.B) {
	setup(b)
	const shards, perShard = 100, 2000
	secs := 10
	if v := os.Getenv("MERGE_SECONDS"); v != "" {
		if _, err := fmt.Sscan(v, &secs); err != nil || secs < 1 {
			b.Fatalf("MERGE_SECONDS %q: want a whole number of seconds", v)
		}
	}
	dir := b.TempDir()
	var paths []string
	var size int64
	for i := range shards {
		p := filepath.Join(dir, fmt.Sprintf("shard-%d.jsonl.gz", i))
		genShaped(b, p, shape{calls: perShard * secs, first: uint64(i), step: shards,
			every: time.Second / (shards * perShard), sampleEvery: perShard / 10,
			shard: &results.Shard{Index: i, Count: shards}, shared: true})
		st, err := os.Stat(p)
		if err != nil {
			b.Fatal(err)
		}
		size += st.Size()
		paths = append(paths, p)
	}
	b.Logf("%d shard files, %d calls, %.0f MiB gzipped", shards, shards*perShard*secs, float64(size)/(1<<20))
	for i := 0; i < b.N; i++ {
		before := machineNow()
		cmd := exec.Command(bin, append([]string{"report", "--same-scenario", "--format", "json", "-o", os.DevNull}, paths...)...)
		start := time.Now()
		out, err := cmd.CombinedOutput()
		wall := time.Since(start)
		if ee, ok := err.(*exec.ExitError); err != nil && (!ok || ee.ExitCode() != 1) {
			b.Fatalf("report: %v\n%s", err, out)
		}
		ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
		cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		b.ReportMetric(wall.Seconds(), "wall-s")
		b.ReportMetric(cpu.Seconds(), "cpu-s")
		b.ReportMetric(float64(ru.Maxrss)/1024, "peak-rss-MiB")
		b.ReportMetric(cpu.Seconds()*1e6/float64(shards*perShard*secs), "cpu-µs/call")
		reportOthers(b, before, cpu)
	}
}
