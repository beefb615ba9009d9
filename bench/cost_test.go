package bench

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// vegetaBody is the request vegeta sends: the same 2026-07-28 tools/call
// of echo that mcpchaos sends, with its _meta.
const vegetaBody = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"vegeta","version":"12"}}}}`

// BenchmarkCostEcho measures the CPU seconds (user+sys of the child, from
// getrusage) that `mcpchaos run` spends per 10,000 echo calls at 1,000/s
// for 10 s against `mcpchaos serve`. With VEGETA set to a vegeta v12
// binary (bench/vegeta.sh installs one), vegeta attacks the same endpoint
// with the same request, rate and keep-alive in the same iteration, and
// the ratio is reported too (aim: ≤ 1.5). bench/vegeta.sh is the
// three-run median of the same comparison.
func BenchmarkCostEcho(b *testing.B) {
	setup(b)
	const rate, seconds = 1000, 10
	srv := startServer(b)
	scenario := fmt.Sprintf(`name: cost-echo
seed: 1
protocol: 2026-07-28
target:
  http: {url: %q}
load: {rate: %d/1s, duration: %ds, max_in_flight: 10000}
timeouts: {idle: 5s, max: 10s}
calls:
  - {tool: echo, arguments: {text: hi}}
`, srv.URL, rate, seconds)
	vegeta := os.Getenv("VEGETA")
	for i := 0; i < b.N; i++ {
		before := machineNow()
		srvCPU0, _ := procCPU(srv.cmd.Process.Pid)
		r := runScenario(b, scenario, runOpts{})
		srvCPU1, _ := procCPU(srv.cmd.Process.Pid)
		logRun(b, r)
		reportOthers(b, before, r.CPU()+srvCPU1-srvCPU0)
		total, ok := r.Summary.num("calls.total"), r.Summary.num("calls.ok")
		if ok != total {
			b.Logf("cost: only %v of %v calls ok", ok, total)
		}
		mc := r.CPU().Seconds() * 10000 / total
		b.ReportMetric(mc, "mcpchaos-cpu-s/10k")
		if vegeta == "" {
			b.Log("cost: VEGETA is not set, so vegeta was not run (bench/vegeta.sh installs it and compares)")
			continue
		}
		vg, requests := runVegeta(b, vegeta, srv.URL, rate, seconds)
		b.ReportMetric(vg*10000/requests, "vegeta-cpu-s/10k")
		b.ReportMetric(mc/(vg*10000/requests), "ratio")
		verdict(b, mc/(vg*10000/requests) <= 1.5, "cost: mcpchaos %.3f, vegeta %.3f CPU-s per 10,000 calls (aim ≤ 1.5×)", mc, vg*10000/requests)
	}
}

// runVegeta runs vegeta attack and returns its CPU seconds and how many
// requests it sent, checking that every one got HTTP 200.
func runVegeta(b *testing.B, vegeta, url string, rate, seconds int) (cpu float64, requests float64) {
	b.Helper()
	dir := b.TempDir()
	body := filepath.Join(dir, "body.json")
	out := filepath.Join(dir, "results.bin")
	if err := os.WriteFile(body, []byte(vegetaBody), 0o644); err != nil {
		b.Fatal(err)
	}
	attack := exec.Command(vegeta, "attack", "-rate", fmt.Sprintf("%d/1s", rate), "-duration", fmt.Sprintf("%ds", seconds),
		"-keepalive=true", "-header", "Accept: application/json, text/event-stream", "-header", "Content-Type: application/json",
		"-header", "MCP-Protocol-Version: 2026-07-28", "-header", "Mcp-Method: tools/call", "-header", "Mcp-Name: echo",
		"-body", body, "-output", out)
	attack.Stdin = strings.NewReader("POST " + url + "\n")
	if msg, err := attack.CombinedOutput(); err != nil {
		b.Fatalf("vegeta attack: %v\n%s", err, msg)
	}
	cpu = (attack.ProcessState.UserTime() + attack.ProcessState.SystemTime()).Seconds()
	raw, err := exec.Command(vegeta, "report", "-type=json", out).Output()
	if err != nil {
		b.Fatalf("vegeta report: %v", err)
	}
	var rep struct {
		Requests    float64            `json:"requests"`
		StatusCodes map[string]float64 `json:"status_codes"`
	}
	if err := json.Unmarshal(raw, &rep); err != nil {
		b.Fatalf("vegeta report: %v", err)
	}
	if rep.StatusCodes["200"] != rep.Requests || rep.Requests < 0.99*float64(rate*seconds) {
		b.Fatalf("vegeta: %v HTTP 200s for %v requests (%d offered): %s", rep.StatusCodes["200"], rep.Requests, rate*seconds, raw)
	}
	return cpu, rep.Requests
}
