package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/mcpchaos/mcpchaos/internal/engine"
	"github.com/mcpchaos/mcpchaos/results"
)

// The environment a sharded run reads when its flags do not say: a
// Kubernetes Indexed Job sets JOB_COMPLETION_INDEX in every pod.
const (
	envJobIndex = "JOB_COMPLETION_INDEX"
	envShards   = "MCPCHAOS_SHARDS"
	envStartAt  = "MCPCHAOS_START_AT"
)

// shardFlags are run's flags for a run split over several processes.
type shardFlags struct {
	shard   string // --shard I/N
	shards  int    // --shards N (the index from JOB_COMPLETION_INDEX)
	startAt string // --start-at RFC 3339
}

func (f *shardFlags) define(fs *pflag.FlagSet) {
	fs.StringVar(&f.shard, "shard", "", "run shard `I/N` of the schedule: the calls whose seq % N == I (docs/distributed.md)")
	fs.IntVar(&f.shards, "shards", 0, "split the run over `N` shards, this one's index from $"+envJobIndex+" (default $"+envShards+")")
	fs.StringVar(&f.startAt, "start-at", "", "start the load at `TIME` (RFC 3339; default $"+envStartAt+"); a shard that comes late drops the calls it missed")
}

// resolve returns the shard and the start instant the flags, else the
// environment (lookup), ask for; the zero values for a whole run started
// at once.
func (f *shardFlags) resolve(fs *pflag.FlagSet, lookup func(string) (string, bool)) (engine.Shard, time.Time, error) {
	s, err := f.shardOf(fs, lookup)
	if err != nil {
		return s, time.Time{}, err
	}
	at, from := f.startAt, "--start-at"
	if !fs.Changed("start-at") {
		at, _ = lookup(envStartAt)
		from = envStartAt
	}
	if at = strings.TrimSpace(at); at == "" {
		return s, time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339Nano, at)
	if err != nil {
		return s, time.Time{}, fmt.Errorf("%s %q: want an RFC 3339 time, e.g. 2026-12-03T12:00:00Z", from, at)
	}
	return s, t, nil
}

func (f *shardFlags) shardOf(fs *pflag.FlagSet, lookup func(string) (string, bool)) (engine.Shard, error) {
	if fs.Changed("shard") {
		s, err := engine.ParseShard(f.shard)
		if err != nil {
			return s, fmt.Errorf("--shard: %w", err)
		}
		if fs.Changed("shards") && f.shards != s.Count {
			return s, fmt.Errorf("--shard %q and --shards %d disagree on the count", f.shard, f.shards)
		}
		return s, nil
	}
	count, from := f.shards, "--shards"
	if !fs.Changed("shards") {
		v, ok := lookup(envShards)
		if !ok || strings.TrimSpace(v) == "" {
			return engine.Shard{}, nil // a whole run
		}
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil {
			return engine.Shard{}, fmt.Errorf("%s %q: want a whole number of shards", envShards, v)
		}
		count, from = n, envShards
	}
	if count < 1 {
		return engine.Shard{}, fmt.Errorf("%s %d: want at least 1 shard", from, count)
	}
	if count > results.MaxShards {
		return engine.Shard{}, fmt.Errorf("%s %d: want at most %d shards", from, count, results.MaxShards)
	}
	v, ok := lookup(envJobIndex)
	if !ok || strings.TrimSpace(v) == "" {
		return engine.Shard{}, fmt.Errorf("%s %d needs this shard's index: --shard I/%d, or $%s (a Kubernetes Indexed Job sets it)",
			from, count, count, envJobIndex)
	}
	i, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil {
		return engine.Shard{}, fmt.Errorf("%s %q: want a whole number", envJobIndex, v)
	}
	s := engine.Shard{Index: i, Count: count}
	if err := s.Validate(); err != nil {
		return s, fmt.Errorf("%s %q with %s %d: %w", envJobIndex, v, from, count, err)
	}
	return s, nil
}

// lateStart tells, on stderr, that the load reached --start-at late.
func lateStart(stderr io.Writer, s engine.Shard, at time.Time) func(time.Duration) {
	return func(late time.Duration) {
		who := "the run"
		if s.Count > 0 {
			who = "shard " + s.String()
		}
		fmt.Fprintf(stderr, "mcpchaos run: %s reached --start-at %s %s late: the calls due before then are counted as dropped\n",
			who, at.UTC().Format(time.RFC3339Nano), late.Round(time.Millisecond))
	}
}
