package probes

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// exposition is a text-format body with the things real endpoints have.
const textBody = `# A comment that is neither HELP nor TYPE.
# HELP mcp_inflight_calls Calls being handled right now.
# TYPE mcp_inflight_calls gauge
mcp_inflight_calls{tool="slow",transport="http"} 3
mcp_inflight_calls{tool="slow",transport="stdio"} 1
mcp_inflight_calls{tool="echo",transport="http"} 0.5

# HELP mcp_calls_total Calls handled.
# TYPE mcp_calls_total counter
mcp_calls_total{tool="slow"} 100
mcp_calls_total{tool="echo"} 20 1700000000000
# HELP mcp_call_seconds Call latency.
# TYPE mcp_call_seconds histogram
mcp_call_seconds_bucket{le="0.1"} 5
mcp_call_seconds_bucket{le="1"} 8
mcp_call_seconds_bucket{le="+Inf"} 9
mcp_call_seconds_sum 4.5
mcp_call_seconds_count 9
# TYPE rpc_latency summary
rpc_latency{quantile="0.5"} 0.2
rpc_latency_sum 2
rpc_latency_count 10
mcp_inflight_calls_peak 99
untyped_thing{a="b"} 7
{"my.dotted \"metric\"",zone="a"} 2
`

const textType = "text/plain; version=0.0.4; charset=utf-8"

func sel(kv ...string) []labelPair {
	var out []labelPair
	for i := 0; i+1 < len(kv); i += 2 {
		out = append(out, labelPair{kv[i], kv[i+1]})
	}
	return out
}

func TestReadExposition(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		metric  string
		labels  []labelPair
		want    float64
		wantErr string // substring; "" = no error
		absent  bool   // the error wraps ErrAbsent
	}{
		{name: "gauge, all series", metric: "mcp_inflight_calls", want: 4.5},
		{name: "gauge, one label", metric: "mcp_inflight_calls", labels: sel("tool", "slow"), want: 4},
		{name: "gauge, two labels", metric: "mcp_inflight_calls", labels: sel("tool", "slow", "transport", "stdio"), want: 1},
		{name: "gauge, no series matches", metric: "mcp_inflight_calls", labels: sel("tool", "nope"), wantErr: `no series with labels {tool="nope"} among its 3`, absent: true},
		{name: "gauge, label value must match exactly", metric: "mcp_inflight_calls", labels: sel("tool", "slo"), wantErr: "no series", absent: true},
		{name: "counter with a timestamp", metric: "mcp_calls_total", want: 120},
		{name: "untyped", metric: "untyped_thing", labels: sel("a", "b"), want: 7},
		{name: "utf-8 quoted name", metric: `my.dotted "metric"`, want: 2},
		{name: "a longer name is another metric", metric: "mcp_inflight_calls_peak", want: 99},
		{name: "histogram series by its own name", metric: "mcp_call_seconds_count", want: 9},
		{name: "histogram bucket by label", metric: "mcp_call_seconds_bucket", labels: sel("le", "+Inf"), want: 9},
		{name: "histogram itself", metric: "mcp_call_seconds", wantErr: `metric "mcp_call_seconds" is a histogram`},
		{name: "summary itself", metric: "rpc_latency", wantErr: `metric "rpc_latency" is a summary`},
		{name: "absent", metric: "mcp_orphans", wantErr: `metric "mcp_orphans": absent`, absent: true},
		{name: "a prefix is not the metric", metric: "mcp_inflight", wantErr: `metric "mcp_inflight": absent`, absent: true},
		{name: "empty name", metric: "", wantErr: "empty metric name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := readExposition(t.Context(), strings.NewReader(textBody), textType, tt.metric, tt.labels, Limits{})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want one containing %q", err, tt.wantErr)
				}
				if errors.Is(err, ErrAbsent) != tt.absent {
					t.Errorf("errors.Is(%v, ErrAbsent) = %v, want %v", err, !tt.absent, tt.absent)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.value != tt.want {
				t.Errorf("value = %v, want %v", got.value, tt.want)
			}
		})
	}
}

func TestReadExpositionMalformed(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		body    string
		ctype   string
		lim     Limits
		wantErr string
	}{
		{name: "unclosed label set", body: "# TYPE m gauge\nother 1\nm{tool=\"slow\" 3\n", wantErr: "parse exposition: line 3:"},
		{name: "bad value", body: "m abc\n", wantErr: "parse exposition: line 1:"},
		{name: "binary junk on the metric's line", body: "m\x00\xff{{{\n", wantErr: "parse exposition"},
		{name: "last line without a newline", body: "m 1", wantErr: "parse exposition"},
		{name: "two TYPE lines", body: "# TYPE m gauge\n# TYPE m counter\nm 1\n", wantErr: "parse exposition: line 2:"},
		{name: "NaN", body: "m NaN\n", wantErr: `value NaN is not a finite number`},
		{name: "infinite", body: "m +Inf\n", wantErr: `value +Inf is not a finite number`},
		{name: "protobuf refused", body: "\x00\x01", ctype: "application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; encoding=delimited", wantErr: "is not supported"},
		{name: "body over the bound", body: "m 1\n" + strings.Repeat("#\n", 10), lim: Limits{MaxBodyBytes: 20}, wantErr: "body exceeds 20 bytes"},
		{name: "line over the bound", body: "m 1\n# " + strings.Repeat("x", 100) + "\n", lim: Limits{MaxLineBytes: 64}, wantErr: "line 2 is longer than 64 bytes"},
		{name: "too many mentions", body: strings.Repeat("m 1\n", 100), lim: Limits{MaxMatchBytes: 100}, wantErr: "exceed 100 bytes"},
		{name: "openmetrics without EOF", body: "# TYPE m gauge\nm 1\n", ctype: omType, wantErr: "# EOF"},
		{name: "openmetrics, too many lines", body: strings.Repeat("m 1\n", 5) + "# EOF\n", ctype: omType, lim: Limits{MaxOpenMetricsLines: 4}, wantErr: "more than 4 OpenMetrics lines"},
		{name: "openmetrics, line too long", body: "other 1\nm{a=\"" + strings.Repeat("x", 512) + "\"} 1\n# EOF\n", ctype: omType, wantErr: "OpenMetrics line 2 is longer than 512 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctype := tt.ctype
			if ctype == "" {
				ctype = textType
			}
			got, err := readExposition(t.Context(), strings.NewReader(tt.body), ctype, "m", nil, tt.lim)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("readExposition = %v, %v; want error containing %q", got.value, err, tt.wantErr)
			}
		})
	}
}

func TestReadExpositionBounds(t *testing.T) {
	t.Parallel()
	body := "m 1\n# padding\n" // 14 bytes
	if _, err := readExposition(t.Context(), strings.NewReader(body), textType, "m", nil, Limits{MaxBodyBytes: 14}); err != nil {
		t.Errorf("a body of exactly MaxBodyBytes: %v", err)
	}
	if _, err := readExposition(t.Context(), strings.NewReader(body), textType, "m", nil, Limits{MaxBodyBytes: 13}); err == nil {
		t.Error("a body one byte over MaxBodyBytes was accepted")
	}
	// Junk that does not mention the metric is never parsed.
	junk := "}}} not { a valid line\n\x00\x01\n" + body
	if got, err := readExposition(t.Context(), strings.NewReader(junk), textType, "m", nil, Limits{}); err != nil || got.value != 1 {
		t.Errorf("junk elsewhere in the body: %v, %v; want 1, nil", got.value, err)
	}
	// A carriage return is kept and reaches the parser, as it was sent.
	if _, err := readExposition(t.Context(), strings.NewReader("m 1\r\n"), textType, "m", nil, Limits{}); err == nil {
		t.Error("a CRLF line was accepted; the parser should see the \\r")
	}
}

const omType = "application/openmetrics-text; version=1.0.0; charset=utf-8"

func TestReadExpositionOpenMetrics(t *testing.T) {
	t.Parallel()
	body := `# TYPE mcp_inflight_calls gauge
# HELP mcp_inflight_calls Calls being handled.
mcp_inflight_calls{tool="slow"} 3
mcp_inflight_calls{tool="echo"} 1
# TYPE mcp_calls counter
# HELP mcp_calls Calls handled.
mcp_calls_total{tool="slow"} 12
mcp_calls_created{tool="slow"} 1.7e+09
# EOF
`
	tests := []struct {
		name   string
		metric string
		labels []labelPair
		want   float64
	}{
		{"gauge", "mcp_inflight_calls", nil, 4},
		{"gauge with label", "mcp_inflight_calls", sel("tool", "echo"), 1},
		{"counter by its _total name", "mcp_calls_total", nil, 12},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := readExposition(t.Context(), strings.NewReader(body), omType, tt.metric, tt.labels, Limits{})
			if err != nil {
				t.Fatal(err)
			}
			if got.value != tt.want {
				t.Errorf("value = %v, want %v", got.value, tt.want)
			}
		})
	}
}

// TestReadExpositionOpenMetricsWorstCase decodes the most an OpenMetrics
// body may hand expfmt under the default limits: lines of many labels,
// which its ABNF parser handles slowest.
func TestReadExpositionOpenMetricsWorstCase(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("# TYPE m gauge\n")
	for i := range DefaultMaxOpenMetricsLines - 2 { // TYPE and EOF count too
		var l strings.Builder
		l.WriteString("m{")
		for j := 0; l.Len() < DefaultMaxOpenMetricsLineBytes-20; j++ {
			fmt.Fprintf(&l, "l%d=\"v\",", j)
		}
		fmt.Fprintf(&l, "z=\"%d\"} 1\n", i)
		b.WriteString(l.String())
	}
	b.WriteString("# EOF\n")
	start := time.Now()
	got, err := readExposition(t.Context(), strings.NewReader(b.String()), omType, "m", nil, Limits{})
	if err != nil || got.value != DefaultMaxOpenMetricsLines-2 {
		t.Fatalf("readExposition = %v, %v; want %d", got.value, err, DefaultMaxOpenMetricsLines-2)
	}
	// The bound catches a decode that the limits no longer bound (minutes
	// or more), not a slow machine: under -race beside busy loops this
	// input took 19 s.
	if d := time.Since(start); d > time.Minute {
		t.Errorf("decoding took %v", d)
	}
}
