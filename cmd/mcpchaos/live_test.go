package main

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/mcpchaos/mcpchaos/internal/testutil"
)

const liveScenario = `name: live
seed: 3
target:
  builtin: {transport: http}
load:
  rate: 20/1s
  duration: 6s
calls:
  - {tool: slow_task, weight: 1, arguments: {steps: 3, step_ms: 100}, progress: true}
  - {tool: echo, weight: 1, arguments: {text: hi}}
faults:
  - {kind: cancel, probability: 0.5, tools: [slow_task], after: 50ms}
orphans:
  grace: 200ms
`

// scrapeFamilies reads a page of the Prometheus text format with its parser.
func scrapeFamilies(ctx context.Context, url string) (map[string]*dto.MetricFamily, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	p := expfmt.NewTextParser(model.UTF8Validation)
	return p.TextToMetricFamilies(resp.Body)
}

// sum adds a family's counter, gauge or histogram-count values over the
// series whose labels include want.
func sum(f *dto.MetricFamily, want map[string]string) float64 {
	total := 0.0
	for _, m := range f.GetMetric() {
		labels := map[string]string{}
		for _, l := range m.GetLabel() {
			labels[l.GetName()] = l.GetValue()
		}
		ok := true
		for k, v := range want {
			ok = ok && labels[k] == v
		}
		if !ok {
			continue
		}
		switch {
		case m.Counter != nil:
			total += m.GetCounter().GetValue()
		case m.Gauge != nil:
			total += m.GetGauge().GetValue()
		case m.Histogram != nil:
			total += float64(m.GetHistogram().GetSampleCount())
		}
	}
	return total
}

// TestMetricsListen scrapes `mcpchaos run --metrics-listen` while the run
// goes on (a separate process, the real binary) and parses the page with
// the Prometheus text parser: calls by tool and outcome, in flight, the
// offered and achieved rates, latency histograms, faults injected.
func TestMetricsListen(t *testing.T) {
	self := bin.Need(t)
	path := writeScenario(t, "live.yaml", liveScenario)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, self, "run", "-q", "--shard", "1/2", "--metrics-listen", "127.0.0.1:0", path)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Wait() }()
	lines := make(chan string, 100)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	var url string
	for url == "" {
		line, ok := <-lines
		if !ok {
			t.Fatal("mcpchaos run ended without saying where its metrics are")
		}
		if _, u, found := strings.Cut(line, "live metrics on "); found {
			url = u
		}
	}
	if !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Fatalf("metrics at %q, want loopback", url)
	}
	var fams map[string]*dto.MetricFamily
	ready := func() bool {
		var err error
		fams, err = scrapeFamilies(ctx, url)
		if err != nil {
			t.Fatalf("scrape %s: %v", url, err)
		}
		f := fams["mcpchaos_calls_total"]
		inj := fams["mcpchaos_faults_injected_total"]
		return f != nil && inj != nil && sum(f, map[string]string{"tool": "echo", "outcome": "ok"}) > 0 &&
			sum(inj, map[string]string{"kind": "cancel"}) > 0 && sum(fams["mcpchaos_rate_achieved"], nil) > 0
	}
	if !testutil.Poll(testutil.WaitLong, ready) {
		t.Fatalf("no echo ok, cancel fault or achieved rate during the run: %v", fams)
	}
	for _, name := range []string{"mcpchaos_calls_in_flight", "mcpchaos_rate_offered", "mcpchaos_rate_achieved",
		"mcpchaos_call_latency_seconds", "mcpchaos_service_latency_seconds", "mcpchaos_calls_scheduled"} {
		f := fams[name]
		if f == nil {
			t.Errorf("no %s", name)
			continue
		}
		if got := f.GetMetric()[0].GetLabel(); !hasLabel(got, "shard", "1/2") || !hasLabel(got, "scenario", "live") {
			t.Errorf("%s labels %v, want shard 1/2 and scenario live", name, got)
		}
	}
	if f := fams["mcpchaos_call_latency_seconds"]; f != nil && f.GetType() != dto.MetricType_HISTOGRAM {
		t.Errorf("call latency is a %s, want a histogram", f.GetType())
	}
	// This shard offers half of 20/s.
	if got := sum(fams["mcpchaos_rate_offered"], nil); got != 10 {
		t.Errorf("offered rate %g, want 10 (20/s over 2 shards)", got)
	}
	if got := sum(fams["mcpchaos_calls_total"], map[string]string{"tool": "slow_task", "outcome": "cancelled"}); got == 0 {
		t.Errorf("no cancelled slow_task counted")
	}
}

func hasLabel(ls []*dto.LabelPair, name, value string) bool {
	for _, l := range ls {
		if l.GetName() == name && l.GetValue() == value {
			return true
		}
	}
	return false
}

// TestNoteEveryInterface: a --metrics-listen address without a host, or
// with an unspecified one, is said on stderr to serve every interface;
// a host of its own is not.
func TestNoteEveryInterface(t *testing.T) {
	for _, tt := range []struct {
		name, addr, bound string
		note              bool
	}{
		{name: "no host", addr: ":0", bound: "[::]:41234", note: true},
		{name: "0.0.0.0", addr: "0.0.0.0:9090", bound: "0.0.0.0:9090", note: true},
		{name: "::", addr: "[::]:9090", bound: "[::]:9090", note: true},
		{name: "loopback", addr: "127.0.0.1:0", bound: "127.0.0.1:41234"},
		{name: "IPv6 loopback", addr: "[::1]:0", bound: "[::1]:41234"},
		{name: "a name", addr: "localhost:9090", bound: "127.0.0.1:9090"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			noteEveryInterface(&b, "mcpchaos run", tt.addr, tt.bound)
			want := fmt.Sprintf("mcpchaos run: note: --metrics-listen %q serves every network interface of this machine", tt.addr)
			if got := strings.Contains(b.String(), want); got != tt.note {
				t.Errorf("stderr %q, want the note: %v", b.String(), tt.note)
			}
		})
	}
}

// TestMetricsListenNoHost: `mcpchaos run --metrics-listen :0` says on
// stderr that it serves every interface, and the port to name for this
// machine alone.
func TestMetricsListenNoHost(t *testing.T) {
	path := writeScenario(t, "s.yaml", "target: {builtin: {}}\ncalls: [{tool: echo, arguments: {text: hi}}]\nload: {rate: 2/s, duration: 500ms}\n")
	code, _, stderr := runCLI(t, t.Context(), "run", "-q", "--metrics-listen", ":0", path)
	if code != 0 || !strings.Contains(stderr, `mcpchaos run: note: --metrics-listen ":0" serves every network interface of this machine; give a host to serve one, e.g. 127.0.0.1:`) {
		t.Errorf("exit code %d, stderr:\n%s", code, stderr)
	}
}
