package html

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/network"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/mcpchaos/mcpchaos/internal/testutil"
	"github.com/mcpchaos/mcpchaos/report"
	"github.com/mcpchaos/mcpchaos/results"
)

// The report in a real browser: headless Chromium loads a report of a real
// run, through a proxy that records every connection the browser makes;
// the page must make none, every plot must have a rendered size, and a
// screenshot is saved.

// browserNames are the commands tried, in order (Debian's package is
// chromium).
var browserNames = []string{"chromium", "chromium-browser", "google-chrome-stable", "google-chrome"}

// needBrowser returns the browser's path. With no browser it skips the
// test, unless CI is set: there the browser is required (.ci/run
// installs it).
func needBrowser(t *testing.T) string {
	t.Helper()
	for _, name := range browserNames {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("no browser on PATH (tried %s); CI is set, so the browser test must run: install Debian's chromium", strings.Join(browserNames, ", "))
	}
	t.Skipf("no browser on PATH (tried %s); install Debian's chromium to run this test", strings.Join(browserNames, ", "))
	return ""
}

// recordingProxy is an HTTP proxy that answers every request 502 and
// remembers its first line ("CONNECT host:443 HTTP/1.1", "GET http://...
// HTTP/1.1"): the browser sends everything through it, so any network
// request the page makes lands here.
type recordingProxy struct {
	ln   net.Listener
	mu   sync.Mutex
	seen []string
	wg   sync.WaitGroup
}

func startProxy(t *testing.T) *recordingProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen for the recording proxy: %v", err)
	}
	p := &recordingProxy{ln: ln}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			p.wg.Add(1)
			go p.serve(c)
		}
	}()
	t.Cleanup(func() {
		_ = ln.Close()
		p.wg.Wait()
	})
	return p
}

func (p *recordingProxy) serve(c net.Conn) {
	defer p.wg.Done()
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	line, err := bufio.NewReaderSize(c, 4096).ReadString('\n')
	if line == "" && err != nil {
		line = "(a connection that sent no request line)"
	}
	p.mu.Lock()
	p.seen = append(p.seen, strings.TrimSpace(line))
	p.mu.Unlock()
	_, _ = c.Write([]byte("HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"))
}

// requests returns what the proxy saw so far.
func (p *recordingProxy) requests() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.seen...)
}

// browser is headless Chromium, driven over the DevTools protocol: a fresh
// profile, and every request it makes — its own background traffic and
// anything a page asks for — sent to the recording proxy, which answers
// 502, so nothing leaves the machine.
type browser struct {
	path, proxy string
}

// loaded is what the browser saw of a page.
type loaded struct {
	// Requests are the URLs the page asked for, the page itself excluded
	// (DevTools' Network.requestWillBeSent for the page's target: the
	// browser's own traffic is not in it).
	Requests []string
	// Resources are the page's resource timing entries.
	Resources []string
	Plots     []plotSize
	// Screenshot is a PNG of the top of the page.
	Screenshot []byte
	// PrintPlots are the plots' sizes with the print style applied, and
	// PrintNav the navigation's display there (the print style hides it);
	// PDF is the page printed.
	PrintPlots []plotSize
	PrintNav   string
	PDF        []byte
}

type plotSize struct {
	Label  string  `json:"label"`
	Width  float64 `json:"width"`
	Height float64 `json:"height"`
}

// measurePlots returns each plot's rendered size.
const measurePlots = `Array.from(document.querySelectorAll("svg")).map(function (s) {
  var r = s.getBoundingClientRect();
  return {label: s.getAttribute("aria-label") || "", width: r.width, height: r.height};
})`

// load opens the file in a new browser and returns what it saw.
func (b browser) load(t *testing.T, file string) loaded {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testutil.WaitLong+time.Minute)
	defer cancel()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(b.path), chromedp.UserDataDir(t.TempDir()),
		chromedp.NoSandbox, chromedp.DisableGPU, chromedp.WindowSize(1280, 1800),
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.ProxyServer("http://"+b.proxy), chromedp.Flag("proxy-bypass-list", "<-loopback>"),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	defer cancelAlloc()
	bctx, cancelBrowser := chromedp.NewContext(actx)
	defer cancelBrowser()

	url := "file://" + file
	var mu sync.Mutex
	var out loaded
	if err := chromedp.Listen(bctx, func(ev any) {
		if e, ok := ev.(*network.EventRequestWillBeSent); ok && e.Request.URL != url {
			mu.Lock()
			out.Requests = append(out.Requests, e.Request.URL)
			mu.Unlock()
		}
	}); err != nil {
		t.Fatalf("start the browser %s: %v", b.path, err)
	}
	if err := chromedp.Do(bctx, chromedp.EmulateViewport(1280, 1800), chromedp.Navigate(url)); err != nil {
		t.Fatalf("load %s: %v", url, err)
	}
	plots, err := chromedp.Run(bctx, chromedp.Evaluate[[]plotSize](measurePlots))
	if err != nil {
		t.Fatalf("measure the plots: %v", err)
	}
	resources, err := chromedp.Run(bctx, chromedp.Evaluate[[]string](`performance.getEntriesByType("resource").map(function (e) { return e.name; })`))
	if err != nil {
		t.Fatalf("read the resource timing entries: %v", err)
	}
	shot, err := chromedp.Run(bctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatalf("take a screenshot: %v", err)
	}
	if _, err := chromedp.Call(bctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Media: "print"}); err != nil {
		t.Fatalf("emulate print: %v", err)
	}
	printPlots, err := chromedp.Run(bctx, chromedp.Evaluate[[]plotSize](measurePlots))
	if err != nil {
		t.Fatalf("measure the plots for print: %v", err)
	}
	nav, err := chromedp.Run(bctx, chromedp.Evaluate[string](`(function () { var n = document.querySelector("nav"); return n ? getComputedStyle(n).display : ""; })()`))
	if err != nil {
		t.Fatalf("read the navigation's style for print: %v", err)
	}
	pdf, err := chromedp.Call(bctx, cdppage.PrintToPDF, cdppage.PrintToPDFParams{})
	if err != nil {
		t.Fatalf("print to PDF: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	out.Plots, out.Resources, out.Screenshot = plots, resources, shot
	out.PrintPlots, out.PrintNav, out.PDF = printPlots, nav, pdf.Data
	return out
}

// realRun runs the mcpchaos binary on a short scenario against its
// built-in target (throttled, with progress, cancels, timeouts and the
// target's in-flight probe) and returns the run read back from its
// results file.
func realRun(t *testing.T) Run {
	t.Helper()
	dir := t.TempDir()
	bin, err := testutil.Build(dir)
	if err != nil {
		t.Fatal(err)
	}
	scenario := filepath.Join(dir, "html-report.yaml")
	const yaml = `name: html-report
seed: 7
target:
  builtin: {transport: http, rate_limit: 40/1s, leak_on_cancel: 0.3}
load:
  rate: 20/1s
  stages: [{to: 60/1s, over: 4s}]
  duration: 1s
  max_in_flight: 300
timeouts: {idle: 1s, max: 1200ms}
calls:
  - {tool: slow_task, weight: 4, arguments: {steps: 5, step_ms: 60}, progress: true}
  - {tool: slow_task, weight: 1, arguments: {steps: 30, step_ms: 50}, progress: true}
  - {tool: echo, weight: 2, arguments: {text: hi}}
faults:
  - {kind: cancel, probability: 0.2, tools: [slow_task], after: "uniform(50ms, 200ms)"}
orphans: {grace: 500ms}
checks:
  - p99(call) < 10s
  - calls.transport_error == 0
`
	if err := os.WriteFile(scenario, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "results.jsonl")
	ctx, cancel := context.WithTimeout(context.Background(), testutil.WaitLong+time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "run", "--quiet", "--no-fail-on-violation", "--output", out, scenario)
	if msg, err := cmd.CombinedOutput(); err != nil {
		// Exit 1 is a failed check or verdict: still a report to draw.
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
			t.Fatalf("mcpchaos run: %v\n%s", err, msg)
		}
	}
	return readRun(t, out)
}

// readRun reads a results file into a Run: its records through a fresh
// Aggregator (the histograms and seconds), its trailer's summary (the
// verdicts and checks as the run scored them).
func readRun(t *testing.T, path string) Run {
	t.Helper()
	f, err := results.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if f.Trailer == nil || len(f.Trailer.Summary) == 0 {
		t.Fatalf("%s has no trailer with a summary", path)
	}
	sum, err := report.ReadSummary(bytes.NewReader(f.Trailer.Summary))
	if err != nil {
		t.Fatal(err)
	}
	agg := report.NewAggregator(report.Rules{})
	for i := range f.Records {
		agg.Add(&f.Records[i])
	}
	return Run{Name: filepath.Base(path), Summary: sum, Agg: agg, Samples: f.Samples,
		Scenario: f.Header.Config, Version: f.Header.Version}
}

func TestBrowser(t *testing.T) {
	b := browser{path: needBrowser(t)}
	proxy := startProxy(t)
	b.proxy = proxy.ln.Addr().String()
	dir := t.TempDir()

	// The check sees what a page fetches: a page that loads an image and
	// a web font is caught.
	bad := filepath.Join(dir, "fetching.html")
	if err := os.WriteFile(bad, []byte(`<!DOCTYPE html><html><head><style>@font-face{font-family:x;src:url(https://fonts.example.com/x.woff2)}body{font-family:x}</style></head>`+
		`<body><p>text</p><img src="http://203.0.113.7/pixel.png"></body></html>`), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := b.load(t, bad); len(got.Requests) < 2 {
		t.Fatalf("a page that fetches an image and a font made the requests %q: the network check would prove nothing", got.Requests)
	}

	run := realRun(t)
	if run.Summary.Calls.Total == 0 || len(run.Samples) == 0 || run.Summary.Calls.Throttled == 0 {
		t.Fatalf("the run has %d calls, %d samples, %d throttled; the report would not show every plot",
			run.Summary.Calls.Total, len(run.Samples), run.Summary.Calls.Throttled)
	}
	var page bytes.Buffer
	if err := Write(&page, Input{Runs: []Run{run}}); err != nil {
		t.Fatal(err)
	}
	reportPath := filepath.Join(screenshotDir(t), "report.html")
	if err := os.WriteFile(reportPath, page.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	got := b.load(t, reportPath)
	for _, r := range got.Requests {
		t.Errorf("the report made a network request: %s", r)
	}
	for _, r := range got.Resources {
		t.Errorf("the report loaded a resource: %s", r)
	}
	parsed := renderPageFrom(t, page.Bytes())
	if want := len(parsed.byTag("svg")); len(got.Plots) != want || want != len(spectra)+4 {
		t.Errorf("the browser rendered %d plots; the page has %d; want %d (every plot has data)", len(got.Plots), want, len(spectra)+4)
	}
	for _, p := range got.Plots {
		if p.Width < 100 || p.Height < 50 {
			t.Errorf("plot %q is rendered %.0f×%.0f px", p.Label, p.Width, p.Height)
		}
	}
	if len(got.PrintPlots) != len(got.Plots) || got.PrintNav != "none" {
		t.Errorf("with the print style: %d plots (on screen %d), navigation display %q (want none)", len(got.PrintPlots), len(got.Plots), got.PrintNav)
	}
	for _, p := range got.PrintPlots {
		if p.Width < 100 || p.Height < 50 {
			t.Errorf("plot %q is printed %.0f×%.0f px", p.Label, p.Width, p.Height)
		}
	}
	if !bytes.HasPrefix(got.PDF, []byte("%PDF")) {
		t.Errorf("printing the report gave %d bytes that are not a PDF", len(got.PDF))
	}
	shot := filepath.Join(screenshotDir(t), "report.png")
	if err := os.WriteFile(shot, got.Screenshot, 0o644); err != nil {
		t.Fatal(err)
	}
	if len(got.Screenshot) < 10_000 {
		t.Errorf("the screenshot has %d bytes: blank?", len(got.Screenshot))
	}
	t.Logf("screenshot %s (%d bytes); report %s; the browser's own traffic the proxy caught: %d connections",
		shot, len(got.Screenshot), reportPath, len(proxy.requests()))
}

// screenshotDir is where the report and its screenshot go:
// $MCPCHAOS_SCREENSHOT_DIR when set (to refresh docs/img/report.png), else
// the test's temporary directory.
func screenshotDir(t *testing.T) string {
	if d := os.Getenv("MCPCHAOS_SCREENSHOT_DIR"); d != "" {
		return d
	}
	return t.TempDir()
}

// renderPageFrom parses a rendered page.
func renderPageFrom(t *testing.T, page []byte) parsedPage {
	t.Helper()
	root, err := parseHTML(page)
	if err != nil {
		t.Fatal(fmt.Errorf("parse the report: %w", err))
	}
	return parsedPage{raw: string(page), root: root}
}
