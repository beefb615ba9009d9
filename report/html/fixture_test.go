package html

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/scenarios"
	"github.com/mcpchaos/mcpchaos/report"
	"github.com/mcpchaos/mcpchaos/results"
)

// The synthetic runs of the tests: made in code from a fixed seed, so
// every number and every plot is the same on every machine.

// fixtureStart is the fixed start of every synthetic run.
var fixtureStart = time.Date(2026, 8, 1, 10, 0, 0, 0, time.UTC)

// fixture describes a synthetic run.
type fixture struct {
	name    string
	seconds int
	rate    int // calls offered per second at the start; it rises by rate/4 each second
	limit   int // ok answers per second before the rest are throttled (0: no limit)
	slowMs  float64
	samples bool
	checks  []report.Check
	phases  []string // a limits search's phases, in equal shares of the seconds (nil: a run)
}

// run builds the fixture's run: its records through a real Aggregator,
// the summary from it, its probe samples.
func (f fixture) run(t testing.TB) Run {
	t.Helper()
	rng := rand.New(rand.NewPCG(uint64(len(f.name)), 7))
	agg := report.NewAggregator(report.Rules{ProgressGrace: 100 * time.Millisecond, Stall: time.Second, FloodHz: 50})
	var samples []results.Sample
	seq := uint64(0)
	for s := 0; s < f.seconds; s++ {
		n := f.rate + s*f.rate/4
		okThisSecond := 0
		for i := 0; i < n; i++ {
			seq++
			at := fixtureStart.Add(time.Duration(s)*time.Second + time.Duration(i)*time.Second/time.Duration(n))
			r := &results.Record{Type: results.TypeCall, Seq: seq, ID: int64(seq), Scheduled: at, SentUs: 80}
			r.Tool = "slow_task"
			if len(f.phases) > 0 {
				r.Phase = f.phases[s*len(f.phases)/f.seconds]
			}
			if i%4 == 0 {
				r.Tool = "echo"
			}
			lat := f.slowMs * (0.8 + 0.4*rng.Float64())
			if rng.Float64() < 0.02 {
				lat *= 3 // a tail
			}
			switch {
			case f.limit > 0 && okThisSecond >= f.limit:
				r.Outcome, r.Status, r.ThrottleKind = results.Throttled, 429, "http_429"
				r.ResponseUs, r.EndUs = 2000, 2000
			case i%17 == 3:
				r.Outcome, r.CancelUs, r.EndUs = results.Cancelled, int64(lat*500), int64(lat*500)
			case i%53 == 7:
				r.Outcome, r.DeadlineUs, r.TimeoutErrUs = results.TimeoutCap, int64(lat*1000), 300+int64(rng.IntN(4000))
				r.CancelUs = r.DeadlineUs + r.TimeoutErrUs
				r.EndUs = r.CancelUs
			case i%41 == 5:
				r.Outcome, r.Error = results.ToolError, fmt.Sprintf("stopped at step %d of 10: boom", i%10)
				r.ResponseUs, r.EndUs = int64(lat*1000), int64(lat*1000)
			default:
				r.Outcome = results.OK
				r.ResponseUs, r.EndUs = int64(lat*1000), int64(lat*1000)
				okThisSecond++
			}
			if r.Tool == "slow_task" && r.Outcome != results.Throttled {
				r.FirstProgUs = 80 + int64(lat*100)
				r.Progress = &results.Progress{Count: 9, Last: 9, Total: 10, MaxGapUs: int64(lat * 130), MaxRateHz: 10}
			}
			agg.Add(r)
		}
		if f.samples {
			for q := 0; q < 4; q++ {
				at := fixtureStart.Add(time.Duration(s)*time.Second + time.Duration(q)*250*time.Millisecond)
				inflight := int(float64(n) * f.slowMs / 1000)
				samples = append(samples, results.Sample{Type: results.TypeSample, T: at, ClientInFlight: inflight,
					Probes: map[string]float64{"mcpchaos_target_inflight": float64(inflight + s/2)}})
			}
		}
	}
	sum := agg.Summary(report.Meta{Scenario: f.name, Era: "2026-07-28", Transport: "http",
		Target: "builtin http://127.0.0.1:1/mcp", Server: "mcpchaos-target 0.1.0", Seed: 42,
		Started: fixtureStart, Duration: time.Duration(f.seconds) * time.Second})
	sum.Evaluate(f.checks, false)
	return Run{Name: f.name + ".jsonl", Summary: sum, Agg: agg, Samples: samples, Version: "v0.0.0-test",
		Scenario: fixtureScenario(t, f.name)}
}

// fixtureSecret is the token of the fixtures' Authorization header, which
// no page may show.
const fixtureSecret = "fixture-token-5150"

// fixtureScenario is the config a results header records for a run of
// the scenario name: the scenario decoded, then echoed (secrets masked).
func fixtureScenario(t testing.TB, name string) json.RawMessage {
	t.Helper()
	src := "name: " + name + "\nseed: 42\n" +
		"target: {http: {url: \"http://127.0.0.1:1/mcp\", headers: {Authorization: \"Bearer " + fixtureSecret + "\"}}}\n" +
		"load: {rate: 40/s, duration: 12s}\ncalls: [{tool: slow_task, weight: 3}, {tool: echo}]\norphans: {grace: 300ms}\n"
	s, err := scenarios.Parse(name+".yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return s.Echo()
}

// busy is a run with everything: throttling, progress, timeouts, tool
// errors, probe samples, checks.
var busy = fixture{name: "busy", seconds: 12, rate: 40, limit: 60, slowMs: 300, samples: true, checks: []report.Check{
	{Raw: "p99(call) < 2s", Hist: "call", Percentile: 99, Op: "<", Value: 2000, Unit: "ms"},
	{Raw: "calls.tool_error == 0", Key: "calls.tool_error", Op: "==", Value: 0},
}}

// calm is a run with no throttling and no samples.
var calm = fixture{name: "calm", seconds: 8, rate: 20, slowMs: 120}
