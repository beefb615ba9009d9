package scenarios

import (
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/targetserver/knobs"
)

// TestLimitErrors: every value beyond a bound of limits.go is an error at
// the value, and the message states the bound.
func TestLimitErrors(t *testing.T) {
	const target = "target: {builtin: {}}"
	const calls = "calls: [{tool: echo}]"
	file := func(ls ...string) string { return lines(append([]string{target, calls}, ls...)...) }
	tests := []struct {
		name string
		yaml string
		want string // the one error, exactly
	}{
		{"rate per nanosecond", file("load: {rate: 1/1ns, duration: 1s}"),
			`x.yaml:3:14: load.rate: rate "1/1ns" is 1e+09/s, above the most mcpchaos can pace: 100000/1s`},
		{"rate of a trillion", file("load: {rate: 1000000000000/1s, duration: 1s}"),
			`x.yaml:3:14: load.rate: rate "1000000000000/1s" is 1e+12/s, above the most mcpchaos can pace: 100000/1s`},
		{"rate just above", file("load: {rate: 100001/1s, duration: 1s}"),
			`x.yaml:3:14: load.rate: rate "100001/1s" is 1e+05/s, above the most mcpchaos can pace: 100000/1s`},
		{"stage rate", file("load: {stages: [{to: 1/1us, over: 1s}]}"),
			`x.yaml:3:22: load.stages[0].to: rate "1/1µs" is 1e+06/s, above the most mcpchaos can pace: 100000/1s`},
		{"concurrency", file("load: {concurrency: 100000000, duration: 1s}"),
			`x.yaml:3:21: load.concurrency: must be at most 100000, got 100000000`},
		{"max_in_flight", file("load: {rate: 1/s, duration: 1s, max_in_flight: 100001}"),
			`x.yaml:3:48: load.max_in_flight: must be at most 100000, got 100001`},
		{"duration that overflows with a stage", file("load: {stages: [{to: 1/s, over: 1s}], duration: 2562047h}"),
			`x.yaml:3:49: load.duration: duration 2562047h is longer than the most a scenario may ask for: 168h`},
		{"stages that add up past a week", file("load: {stages: [{to: 1/s, over: 100h}, {to: 2/s, over: 100h}]}"),
			`x.yaml:3:16: load.stages: the load lasts longer than 168h (its stages and duration together)`},
		{"stages and duration past a week", file("load: {stages: [{to: 1/s, over: 100h}], duration: 100h}"),
			`x.yaml:3:51: load.duration: the load lasts longer than 168h (its stages and duration together)`},
		{"graceful_stop", file("load: {rate: 1/s, duration: 1s, graceful_stop: 169h}"),
			`x.yaml:3:48: load.graceful_stop: duration 169h is longer than the most a scenario may ask for: 168h`},
		{"timeout", file("load: {rate: 1/s, duration: 1s}", "timeouts: {idle: 1s, max: 10000h}"),
			`x.yaml:4:27: timeouts.max: duration 10000h is longer than the most a scenario may ask for: 168h`},
		{"fault delay", file("load: {rate: 1/s, duration: 1s}", "faults: [{kind: cancel, after: 'uniform(0s, 2562047h)'}]"),
			`x.yaml:4:32: faults[0].after: duration 2562047h is longer than the most a scenario may ask for: 168h`},
		{"after_progress", file("load: {rate: 1/s, duration: 1s}", "faults: [{kind: cancel, after_progress: 10000000000}]"),
			`x.yaml:4:41: faults[0].after_progress: must be at most 2147483647, got 10000000000`},
		{"retries", file("load: {rate: 1/s, duration: 1s}", "throttling: {retry: {max: 1000}}"),
			`x.yaml:4:27: throttling.retry.max: must be at most 100, got 1000`},
		{"pid", file("load: {rate: 1/s, duration: 1s}", "orphans: {probes: [{process: {pid: 99999999999}}]}"),
			`x.yaml:4:36: orphans.probes[0].process.pid: must be at most 2147483647, got 99999999999`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parse("x.yaml", []byte(tt.yaml), testEnv)
			if err == nil || err.Error() != tt.want {
				t.Errorf("error:\n%v\nwant:\n%s", err, tt.want)
			}
		})
	}
	t.Run("weight", func(t *testing.T) {
		src := lines(target, "load: {rate: 1/s, duration: 1s}", "calls: [{tool: echo, weight: 1e300}]")
		_, err := parse("x.yaml", []byte(src), testEnv)
		want := `x.yaml:3:30: calls[0].weight: must be at most 1e+06, got 1e+300`
		if err == nil || err.Error() != want {
			t.Errorf("error:\n%v\nwant:\n%s", err, want)
		}
	})
}

// TestLimitsAccepted: the bounds themselves are accepted.
func TestLimitsAccepted(t *testing.T) {
	src := lines("target: {builtin: {}}", "calls: [{tool: echo, weight: 1000000}]",
		"load: {stages: [{to: 100000/1s, over: 84h}], rate: 1/1ms, duration: 84h, max_in_flight: 100000, graceful_stop: 168h}",
		"timeouts: {idle: 168h, max: 168h}")
	s := mustParse(t, "x.yaml", src)
	if got := s.Load.TotalDuration(); got != MaxDuration {
		t.Errorf("load length %s, want %s", got, MaxDuration)
	}
}

// TestOverrideLimits: --rate and --duration meet the file's bounds.
func TestOverrideLimits(t *testing.T) {
	base := lines("target: {builtin: {}}", "calls: [{tool: echo}]", "load: {stages: [{to: 1/s, over: 100h}], duration: 1s}")
	rate := func(s string) *Rate {
		r, err := knobs.ParseRate(s)
		if err != nil {
			t.Fatal(err)
		}
		return &r
	}
	dur := func(d time.Duration) *time.Duration { return &d }
	tests := []struct {
		name string
		rate *Rate
		dur  *time.Duration
		want string
	}{
		{"rate per nanosecond", rate("1/1ns"), dur(time.Second), `rate override: rate "1/1ns" is 1e+09/s, above the most mcpchaos can pace: 100000/1s`},
		{"duration that overflows", nil, dur(2562047 * time.Hour), `duration override: duration 2562047h is longer than the most a scenario may ask for: 168h`},
		{"duration past a week with the stages", nil, dur(100 * time.Hour), `duration override 100h: the load lasts longer than 168h (its stages and duration together)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := mustParse(t, "x.yaml", base)
			before := s.Load
			err := s.Override(tt.rate, tt.dur, nil)
			if err == nil || err.Error() != tt.want {
				t.Errorf("error:\n%v\nwant:\n%s", err, tt.want)
			}
			if s.Load.Duration != before.Duration || len(s.Load.Stages) != len(before.Stages) {
				t.Errorf("the load changed: %v", s.Load)
			}
		})
	}
}

func TestByteOrderMark(t *testing.T) {
	src := "\xef\xbb\xbf" + lines("name: bom", "target: {builtin: {}}", "load: {rate: 1/s, duration: 1s}", "calls: [{tool: echo}]")
	if s := mustParse(t, "x.yaml", src); s.Name != "bom" {
		t.Errorf("name %q", s.Name)
	}
	for _, mark := range []string{"\xfe\xff", "\xff\xfe"} {
		_, err := parse("x.yaml", []byte(mark+"n\x00a\x00"), testEnv)
		want := "x.yaml: file is UTF-16 (it starts with a UTF-16 byte order mark); save it as UTF-8"
		if err == nil || err.Error() != want {
			t.Errorf("%q: error %v", mark, err)
		}
	}
}
