package scenarios

import (
	"github.com/mcpchaos/mcpchaos/internal/targetserver/knobs"

	"math"
	"math/rand/v2"
	"testing"
	"time"
)

func TestParseDuration(t *testing.T) {
	tests := []struct {
		in   string
		want Duration
		str  string
		err  string
	}{
		{"250ms", Duration(250 * time.Millisecond), "250ms", ""},
		{"0", 0, "0s", ""},
		{"1m", Duration(time.Minute), "1m", ""},
		{"2h0m0s", Duration(2 * time.Hour), "2h", ""},
		{"1h30m", Duration(90 * time.Minute), "1h30m", ""},
		{"1.5s", Duration(1500 * time.Millisecond), "1.5s", ""},
		{"5", 0, "", `invalid duration "5": want a Go duration such as 250ms, 2s or 1m30s`},
		{"-1s", 0, "", `invalid duration "-1s": must not be negative`},
		{"soon", 0, "", `invalid duration "soon": want a Go duration such as 250ms, 2s or 1m30s`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseDuration(tt.in)
			if tt.err != "" {
				if err == nil || err.Error() != tt.err {
					t.Fatalf("error = %v, want %s", err, tt.err)
				}
				return
			}
			if err != nil || got != tt.want || got.String() != tt.str || got.Std() != time.Duration(tt.want) {
				t.Errorf("= %v (%q), %v; want %v (%q)", got, got.String(), err, tt.want, tt.str)
			}
		})
	}
}

func TestParseDist(t *testing.T) {
	ms := time.Millisecond
	tests := []struct {
		in   string
		want Dist
		str  string
		err  string
	}{
		{"1s", Dist{Kind: DistFixed, Value: time.Second}, "1s", ""},
		{"0s", Dist{}, "0s", ""},
		{"uniform(200ms, 1.5s)", Dist{Kind: DistUniform, Low: 200 * ms, High: 1500 * ms}, "uniform(200ms, 1.5s)", ""},
		{" uniform( 1s ,1s ) ", Dist{Kind: DistUniform, Low: time.Second, High: time.Second}, "uniform(1s, 1s)", ""},
		{"exp(500ms)", Dist{Kind: DistExp, Mean: 500 * ms}, "exp(500ms)", ""},
		{"1", Dist{}, "", `invalid distribution "1": want a duration (1s), uniform(LOW, HIGH) or exp(MEAN)`},
		{"-1s", Dist{}, "", `invalid distribution "-1s": must not be negative`},
		{"uniform(2s, 1s)", Dist{}, "", `invalid distribution "uniform(2s, 1s)": low 2s is above high 1s`},
		{"uniform(1s)", Dist{}, "", `invalid distribution "uniform(1s)": uniform takes two durations, LOW and HIGH`},
		{"uniform(1s, 2s", Dist{}, "", `invalid distribution "uniform(1s, 2s": missing closing parenthesis`},
		{"uniform(1s, x)", Dist{}, "", `invalid distribution "uniform(1s, x)": argument "x" is not a duration`},
		{"uniform(-1s, 1s)", Dist{}, "", `invalid distribution "uniform(-1s, 1s)": argument "-1s" is negative`},
		{"exp(0s)", Dist{}, "", `invalid distribution "exp(0s)": the mean must be positive`},
		{"exp(1s, 2s)", Dist{}, "", `invalid distribution "exp(1s, 2s)": exp takes one duration, the mean`},
		{"normal(1s)", Dist{}, "", `invalid distribution "normal(1s)": unknown function "normal" (want uniform or exp)`},
		{"exp()", Dist{}, "", `invalid distribution "exp()": argument "" is not a duration`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseDist(tt.in)
			if tt.err != "" {
				if err == nil || err.Error() != tt.err {
					t.Fatalf("error = %v, want %s", err, tt.err)
				}
				return
			}
			if err != nil || got != tt.want || got.String() != tt.str {
				t.Fatalf("= %+v (%q), %v; want %+v (%q)", got, got.String(), err, tt.want, tt.str)
			}
			again, err := ParseDist(got.String())
			if err != nil || again != got {
				t.Errorf("String does not round-trip: %v, %v", again, err)
			}
		})
	}
}

func TestDistSample(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	fixed := Dist{Value: 3 * time.Second}
	for range 100 {
		if v := fixed.Sample(r); v != 3*time.Second {
			t.Fatalf("fixed sample %v", v)
		}
	}
	uni, _ := ParseDist("uniform(200ms, 1.5s)")
	var lo, hi bool
	for range 10000 {
		v := uni.Sample(r)
		if v < 200*time.Millisecond || v > 1500*time.Millisecond {
			t.Fatalf("uniform sample %v out of range", v)
		}
		lo = lo || v < 300*time.Millisecond
		hi = hi || v > 1400*time.Millisecond
	}
	if !lo || !hi {
		t.Errorf("uniform samples do not cover the range (low %v, high %v)", lo, hi)
	}
	point := Dist{Kind: DistUniform, Low: time.Second, High: time.Second}
	if v := point.Sample(r); v != time.Second {
		t.Errorf("degenerate uniform %v", v)
	}

	exp, _ := ParseDist("exp(500ms)")
	const n = 20000
	var sum time.Duration
	for range n {
		v := exp.Sample(r)
		if v < 0 {
			t.Fatalf("negative exp sample %v", v)
		}
		sum += v
	}
	mean := sum / n
	if mean < 450*time.Millisecond || mean > 550*time.Millisecond {
		t.Errorf("exp mean %v, want about 500ms", mean)
	}

	// The same seed replays the same samples.
	a, b := rand.New(rand.NewPCG(42, 0)), rand.New(rand.NewPCG(42, 0))
	for range 100 {
		if uni.Sample(a) != uni.Sample(b) {
			t.Fatal("samples differ for the same seed")
		}
	}
}

func TestParseByteSize(t *testing.T) {
	tests := []struct {
		in   string
		want ByteSize
		str  string
		err  string
	}{
		{"1000000", 1000000, "1000000", ""},
		{"512KiB", 512 << 10, "512KiB", ""},
		{"2MiB", 2 << 20, "2MiB", ""},
		{"1GiB", 1 << 30, "1GiB", ""},
		{"2MB", 2000000, "2000000", ""},
		{"1.5KiB", 1536, "1536", ""},
		{"10 B", 10, "10", ""},
		{"0", 0, "0", ""},
		{"2XB", 0, "", `invalid size "2XB": want bytes such as 1000000, 512KiB or 2MiB`},
		{"-1KiB", 0, "", `invalid size "-1KiB": must not be negative`},
		{"2TiB", 0, "", `invalid size "2TiB": want bytes such as 1000000, 512KiB or 2MiB`},
		{"2000GB", 0, "", `invalid size "2000GB": larger than 1TiB`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseByteSize(tt.in)
			if tt.err != "" {
				if err == nil || err.Error() != tt.err {
					t.Fatalf("error = %v, want %s", err, tt.err)
				}
				return
			}
			if err != nil || got != tt.want || got.String() != tt.str {
				t.Errorf("= %d (%q), %v; want %d (%q)", got, got.String(), err, tt.want, tt.str)
			}
		})
	}
}

func TestWorkload(t *testing.T) {
	s := func(to string, over float64) Stage {
		r, _ := knobs.ParseRate(to)
		return Stage{To: r, Over: sec(over)}
	}
	tests := []struct {
		name  string
		load  Workload
		total time.Duration
		at    map[time.Duration]float64
	}{
		{"constant", Workload{Rate: Rate{Freq: 50, Per: time.Second}, Duration: sec(30)}, 30 * time.Second,
			map[time.Duration]float64{-1: 0, 0: 50, 29 * time.Second: 50, 30 * time.Second: 0}},
		{"ramp from zero then hold", Workload{Stages: []Stage{s("100/1s", 10)}, Duration: sec(5)}, 15 * time.Second,
			map[time.Duration]float64{0: 0, 5 * time.Second: 50, 10 * time.Second: 100, 14 * time.Second: 100, 15 * time.Second: 0}},
		{"ramp from rate, up then down", Workload{Rate: Rate{Freq: 10, Per: time.Second}, Stages: []Stage{s("30/s", 10), s("600/1m", 10)}}, 20 * time.Second,
			map[time.Duration]float64{0: 10, 5 * time.Second: 20, 10 * time.Second: 30, 15 * time.Second: 20, 19 * time.Second: 12}},
		{"closed", Workload{Concurrency: 4, Duration: sec(3)}, 3 * time.Second,
			map[time.Duration]float64{time.Second: 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.load.TotalDuration(); got != tt.total {
				t.Errorf("TotalDuration = %v, want %v", got, tt.total)
			}
			for at, want := range tt.at {
				if got := tt.load.RateAt(at); math.Abs(got-want) > 1e-9 {
					t.Errorf("RateAt(%v) = %g, want %g", at, got, want)
				}
			}
		})
	}
}

func TestFaultAppliesTo(t *testing.T) {
	f := Fault{Kind: "cancel", Tools: []string{"slow_*", "echo"}}
	for tool, want := range map[string]bool{"slow_task": true, "echo": true, "echo2": false, "fast": false} {
		if got := f.AppliesTo(tool); got != want {
			t.Errorf("AppliesTo(%q) = %v", tool, got)
		}
	}
	if !(Fault{Kind: "reissue"}).AppliesTo("any") {
		t.Error("no tools should match every tool")
	}
}

func TestTargetDescribe(t *testing.T) {
	tests := []struct {
		t         Target
		kind, tr  string
		describes string
	}{
		{Target{Builtin: &BuiltinTarget{Transport: "stdio"}}, "builtin", "stdio", "builtin (stdio)"},
		{Target{Stdio: &StdioTarget{Command: []string{"node", "s.js"}}}, "stdio", "stdio", "stdio (node s.js)"},
		{Target{HTTP: &HTTPTarget{URL: "http://h/mcp"}}, "http", "http", "http (http://h/mcp)"},
		{Target{}, "", "", "none"},
	}
	for _, tt := range tests {
		if tt.t.Kind() != tt.kind || tt.t.Transport() != tt.tr || tt.t.String() != tt.describes {
			t.Errorf("%+v: %q %q %q", tt.t, tt.t.Kind(), tt.t.Transport(), tt.t.String())
		}
	}
}

func TestWorkloadString(t *testing.T) {
	tests := []struct {
		load Workload
		want string
	}{
		{Workload{Rate: Rate{Freq: 50, Per: time.Second}, Duration: sec(30)}, "50/1s for 30s"},
		{Workload{Concurrency: 20, Duration: sec(60)}, "20 workers for 1m"},
		{Workload{Rate: Rate{Freq: 10, Per: time.Second}, Stages: []Stage{{To: Rate{Freq: 300, Per: time.Second}, Over: sec(60)}, {To: Rate{Freq: 50, Per: time.Second}, Over: sec(30)}}, Duration: sec(30)},
			"10/1s, to 300/1s over 1m, to 50/1s over 30s, then 30s"},
		{Workload{Stages: []Stage{{To: Rate{Freq: 5, Per: time.Second}, Over: sec(10)}}}, "0/1s, to 5/1s over 10s"},
	}
	for _, tt := range tests {
		if got := tt.load.String(); got != tt.want {
			t.Errorf("String = %q, want %q", got, tt.want)
		}
	}
}
