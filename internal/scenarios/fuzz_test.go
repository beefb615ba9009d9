package scenarios

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzParse feeds arbitrary bytes to the decoder and its validation (parse
// runs both): it must never panic, it must return either a scenario or an
// error, never both or neither, and a scenario it accepts stays within
// limits.go. The seed corpus in testdata/fuzz/FuzzParse holds one file per
// family of hostile input (deep nesting, byte order marks, huge numbers,
// aliases, long keys, overflowing durations).
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.yaml")
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, src := range fuzzSeeds {
		f.Add([]byte(src))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := parse("fuzz.yaml", data, testEnv)
		if (s == nil) == (err == nil) {
			t.Fatalf("scenario %v and error %v", s, err)
		}
		if err != nil && err.Error() == "" {
			t.Fatal("empty error message")
		}
		if s != nil {
			checkWithinLimits(t, s)
		}
	})
}

// checkWithinLimits fails t when an accepted scenario asks for more than
// limits.go allows.
func checkWithinLimits(t *testing.T, s *Scenario) {
	t.Helper()
	l := s.Load
	if total := l.TotalDuration(); total < 0 || total > MaxDuration {
		t.Errorf("accepted a load of %s", total)
	}
	rates := []Rate{l.Rate}
	for _, st := range l.Stages {
		rates = append(rates, st.To)
	}
	for _, r := range rates {
		if err := CheckRate(r); err != nil {
			t.Errorf("accepted %v", err)
		}
	}
	if l.Concurrency > MaxConcurrency || l.MaxInFlight > MaxInFlight || l.MaxInFlight < 1 {
		t.Errorf("accepted concurrency %d, max_in_flight %d", l.Concurrency, l.MaxInFlight)
	}
	for _, d := range []Duration{l.GracefulStop, s.Timeouts.Idle, s.Timeouts.Max, s.Progress.Grace, s.Progress.Stall, s.Orphans.Grace, s.Orphans.DrainMax} {
		if d < 0 || d.Std() > MaxDuration {
			t.Errorf("accepted a duration of %s", d)
		}
	}
	for _, c := range s.Calls {
		if !(c.Weight > 0 && c.Weight <= MaxWeight) {
			t.Errorf("accepted weight %g", c.Weight)
		}
	}
}

// fuzzSeeds are small documents that reach the odd corners of the decoder:
// anchors, merges, tags, explicit keys, every section.
var fuzzSeeds = []string{
	"",
	"hello",
	"- 1\n- 2\n",
	"a: &x [*x]\n",
	"a: &x {b: 1}\nc: {<<: *x, d: 2}\n",
	"? target\n: {builtin: {}}\n",
	"name: !!str 12\nseed: !!int '3'\n",
	"target: {builtin: {}}\nload: {rate: 1/s, duration: 1s}\ncalls: [{tool: a, arguments: {x: [1, {y: .nan}]}}]\n",
	"target: {stdio: {command: ['${A:-b}'], env: {K: '${B}'}}}\nload: {stages: [{to: 1/s, over: 1s}]}\ncalls: [{tool: a}]\n",
	"target: {http: {url: 'http://h', headers: {A: b}}}\nload: {concurrency: 2, duration: 1s}\ncalls: [{tool: a}]\nfaults: [{kind: disconnect, after: exp(1s)}]\n",
	"checks: ['p99(call) < 1s', 'a.b == 1', 'x']\n",
	"orphans: {probes: [{metric: {url: 'http://h', name: m}}, {process: ~}, {tool: {name: t, pointer: /a}}]}\n",
	"throttling: {rpc_codes: [1, x], retry: ~}\ntimeouts: {policies: [{name: p, idle: 1s, max: 1s}]}\n",
}
