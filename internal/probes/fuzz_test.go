package probes

import (
	"bytes"
	"math"
	"testing"
)

// fuzzTypes are the Content-Types a fuzzed scrape claims.
var fuzzTypes = []string{
	textType,
	"text/plain",
	"text/plain; version=1.0.0; charset=utf-8",
	omType,
	"application/openmetrics-text; version=0.0.1; charset=utf-8",
	"application/openmetrics-text; version=2.0.0; charset=utf-8",
	"application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; encoding=delimited",
	"",
	"text/html",
}

// FuzzReadExposition feeds arbitrary bodies through what a scrape does
// after the HTTP exchange: it must never panic, and a value it returns is
// finite.
func FuzzReadExposition(f *testing.F) {
	f.Add([]byte(textBody), uint8(0), "mcp_inflight_calls", "tool", "slow")
	f.Add([]byte(textBody), uint8(1), "mcp_call_seconds", "", "")
	f.Add([]byte("# TYPE m counter\nm_total 3\nm_created 1\n# EOF\n"), uint8(3), "m_total", "", "")
	f.Add([]byte("m{a=\"1\"} 1 # {t=\"x\"} 1 1\n# EOF\n"), uint8(4), "m", "a", "1")
	f.Add([]byte("{\"m.x\",\"a\"=\"1\"} 2\n"), uint8(0), "m.x", "a", "1")
	f.Add([]byte("m 1\nm{} 2\nm{a=\"\"} +Inf\n"), uint8(2), "m", "a", "")
	f.Add([]byte("\x00\x01\x02m"), uint8(6), "m", "", "")
	f.Fuzz(func(t *testing.T, body []byte, ctype uint8, name, labelName, labelValue string) {
		var labels []labelPair
		if labelName != "" {
			labels = []labelPair{{labelName, labelValue}}
		}
		lim := Limits{MaxBodyBytes: 1 << 20, MaxLineBytes: 64 << 10, MaxMatchBytes: 64 << 10, MaxOpenMetricsLines: 8, MaxOpenMetricsLineBytes: 256}
		ct := fuzzTypes[int(ctype)%len(fuzzTypes)]
		got, err := readExposition(t.Context(), bytes.NewReader(body), ct, name, labels, lim)
		if err == nil && (math.IsNaN(got.value) || math.IsInf(got.value, 0) || got.matched == 0) {
			t.Fatalf("readExposition = %+v with no error", got)
		}
	})
}
