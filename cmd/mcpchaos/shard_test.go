package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/engine"
	"github.com/mcpchaos/mcpchaos/internal/targetserver"
)

// TestShardFlags: the shard and the start instant come from the flags,
// else from the environment an Indexed Job gives; bad values are errors
// that quote them.
func TestShardFlags(t *testing.T) {
	at := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		name  string
		args  []string
		env   map[string]string
		shard engine.Shard
		at    time.Time
		err   string
	}{
		{name: "a whole run"},
		{name: "--shard", args: []string{"--shard", "2/4"}, shard: engine.Shard{Index: 2, Count: 4}},
		{name: "--shard wins over the environment", args: []string{"--shard", "1/4"},
			env: map[string]string{"JOB_COMPLETION_INDEX": "3", "MCPCHAOS_SHARDS": "4"}, shard: engine.Shard{Index: 1, Count: 4}},
		{name: "--shards with the Job's index", args: []string{"--shards", "4"}, env: map[string]string{"JOB_COMPLETION_INDEX": "3"},
			shard: engine.Shard{Index: 3, Count: 4}},
		{name: "MCPCHAOS_SHARDS with the Job's index", env: map[string]string{"JOB_COMPLETION_INDEX": "0", "MCPCHAOS_SHARDS": "2"},
			shard: engine.Shard{Index: 0, Count: 2}},
		{name: "a Job index alone is no shard", env: map[string]string{"JOB_COMPLETION_INDEX": "3"}},
		{name: "--start-at", args: []string{"--start-at", "2026-12-03T12:00:00Z"}, at: at},
		{name: "MCPCHAOS_START_AT", env: map[string]string{"MCPCHAOS_START_AT": "2026-12-03T13:00:00+01:00"}, at: at},
		{name: "--shards without an index", args: []string{"--shards", "4"},
			err: "--shards 4 needs this shard's index: --shard I/4, or $JOB_COMPLETION_INDEX"},
		{name: "index out of range", args: []string{"--shards", "4"}, env: map[string]string{"JOB_COMPLETION_INDEX": "4"},
			err: `JOB_COMPLETION_INDEX "4" with --shards 4: shard "4/4": the index must be from 0 to 3`},
		{name: "index not a number", env: map[string]string{"JOB_COMPLETION_INDEX": "x", "MCPCHAOS_SHARDS": "2"},
			err: `JOB_COMPLETION_INDEX "x": want a whole number`},
		{name: "bad MCPCHAOS_SHARDS", env: map[string]string{"MCPCHAOS_SHARDS": "many"}, err: `MCPCHAOS_SHARDS "many": want a whole number`},
		{name: "no shards", args: []string{"--shards", "0"}, err: "--shards 0: want at least 1 shard"},
		{name: "too many shards", args: []string{"--shards", "2147483648"}, env: map[string]string{"JOB_COMPLETION_INDEX": "0"},
			err: "--shards 2147483648: want at most 10000 shards"},
		{name: "too many shards in the environment", env: map[string]string{"JOB_COMPLETION_INDEX": "0", "MCPCHAOS_SHARDS": "10001"},
			err: "MCPCHAOS_SHARDS 10001: want at most 10000 shards"},
		{name: "--shard beyond the bound", args: []string{"--shard", "0/2147483648"}, err: `shard "0/2147483648": the count must be at most 10000`},
		{name: "--shard at the bound", args: []string{"--shard", "9999/10000"}, shard: engine.Shard{Index: 9999, Count: 10000}},
		{name: "bad --shard", args: []string{"--shard", "4"}, err: `--shard: parse shard "4": want INDEX/COUNT`},
		{name: "--shard and --shards disagree", args: []string{"--shard", "1/4", "--shards", "3"},
			err: `--shard "1/4" and --shards 3 disagree on the count`},
		{name: "bad --start-at", args: []string{"--start-at", "noon"}, err: `--start-at "noon": want an RFC 3339 time`},
		{name: "bad MCPCHAOS_START_AT", env: map[string]string{"MCPCHAOS_START_AT": "12:00"}, err: `MCPCHAOS_START_AT "12:00": want an RFC 3339 time`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fs, f := newRunFlags(io.Discard)
			if err := fs.Parse(tt.args); err != nil {
				t.Fatal(err)
			}
			lookup := func(k string) (string, bool) { v, ok := tt.env[k]; return v, ok }
			shard, startAt, err := f.shards.resolve(fs, lookup)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("resolve: %v, want an error with %q", err, tt.err)
				}
				return
			}
			if err != nil || shard != tt.shard || !startAt.Equal(tt.at) {
				t.Fatalf("resolve = %v, %s, %v; want %v, %s", shard, startAt, err, tt.shard, tt.at)
			}
		})
	}
}

// TestSharedServerWithoutStartAt: a shard of an HTTP server the other
// shards share, with an orphan probe and no --start-at, says on stderr
// that its orphan evidence needs --start-at; with it, or as a whole run,
// it says nothing of the kind.
func TestSharedServerWithoutStartAt(t *testing.T) {
	tg, err := targetserver.StartHTTP(context.Background(), targetserver.Config{}, "")
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	scenario := writeScenario(t, "shared.yaml", fmt.Sprintf(`name: shared
target:
  http: {url: %q}
load: {rate: 10/1s, duration: 200ms}
timeouts: {idle: 1s, max: 1s} # a shard with --start-at reads its probes 2 s after the load
calls:
  - {tool: echo, arguments: {text: hi}}
orphans:
  grace: 100ms
  probes: [{name: inflight, metric: {url: %q, name: mcpchaos_target_inflight}}]
`, tg.URL, tg.MetricsURL))
	const warning = "orphan evidence of a server shared with 1 other shards needs --start-at"
	for _, tt := range []struct {
		name    string
		args    []string
		startAt bool
		warn    bool
	}{
		{name: "a shard without --start-at", args: []string{"--shard", "1/2"}, warn: true},
		{name: "a shard with --start-at", args: []string{"--shard", "0/2"}, startAt: true},
		{name: "a whole run"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"run", "-q", "--no-schema-check"}, tt.args...)
			if tt.startAt { // soon after this subtest starts, not after the ones before it
				args = append(args, "--start-at", time.Now().Add(time.Second).UTC().Format(time.RFC3339Nano))
			}
			args = append(args, scenario)
			code, _, stderr := runCLI(t, context.Background(), args...)
			if code != 0 || strings.Contains(stderr, warning) != tt.warn {
				t.Errorf("exit %d, stderr:\n%s\nwant exit 0 and the warning %v", code, stderr, tt.warn)
			}
		})
	}
}
