package e2e

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpchaos/mcpchaos/internal/targetserver"
	"github.com/mcpchaos/mcpchaos/internal/targetserver/knobs"
	"github.com/mcpchaos/mcpchaos/internal/testutil"
)

// secretOutput is one output of `mcpchaos run` searched for planted
// secrets: stdout, stderr, or a file a flag writes. A new output format is
// one more row.
type secretOutput struct {
	name string
	flag string // the run flag that writes the file; "" for stdout and stderr
	file string // its name in the run's directory
}

var secretOutputs = []secretOutput{
	{name: "stdout"},
	{name: "stderr"},
	{name: "summary JSON", flag: "--summary-json", file: "summary.json"},
	{name: "results file", flag: "-o", file: "results.jsonl"},
	{name: "junit", flag: "--junit", file: "junit.xml"},
	{name: "hlog", flag: "--hlog", file: "run.hlog"},
	{name: "vegeta json", flag: "--vegeta", file: "vegeta.json"},
	{name: "html", flag: "--html", file: "report.html"},
}

// reportFormats are the renderings of `mcpchaos report` that are searched
// too, read from the run's results file.
var reportFormats = []string{"text", "json", "junit", "html", "hlog", "vegeta"}

// secret is a unique token planted in one place a scenario can hold one.
type secret struct{ place, token string }

func plant(place string) secret {
	return secret{place, fmt.Sprintf("S3CR3T-%s-%d", strings.ReplaceAll(place, " ", "-"), os.Getpid())}
}

// secretCase is a scenario that carries secrets, whether its results file
// is compressed, the exit statuses of run and validate on it, and what the
// output must show (the run got where it should).
type secretCase struct {
	name     string
	scenario string
	gzip     bool
	code     int    // run's exit status
	validate int    // validate's
	want     string // in stdout or stderr: the run got where it should
}

// withCreds is raw (an http:// URL) with user and pass as its user
// information and query as its access_token.
func withCreds(raw, user string, pass, query secret) string {
	host := strings.TrimPrefix(raw, "http://")
	return "http://" + user + ":" + pass.token + "@" + host + "?access_token=" + query.token + "&page=1"
}

// TestSecretsNeverWritten plants a unique token in every place a scenario
// can carry one — a header literal, a header from ${ENV}, stdio env (literal
// and from ${ENV}), a command argument from ${ENV} that the server echoes
// on stderr, URL user information, URL query tokens, a metric probe's URL,
// a header with a line break, a URL that cannot be connected to — runs the
// real binary (over HTTP against the built-in target started here, and
// over stdio against `mcpchaos serve --stdio`) and `validate`, and searches
// every output for every token.
func TestSecretsNeverWritten(t *testing.T) {
	t.Parallel()
	exe := bin.Need(t)
	var (
		hdrLit     = plant("header literal")
		hdrEnv     = plant("header env")
		urlPass    = plant("url password")
		urlQuery   = plant("url query")
		probePass  = plant("probe password")
		probeQuery = plant("probe query")
		stdioLit   = plant("stdio env literal")
		stdioEnv   = plant("stdio env from env")
		argEnv     = plant("command arg from env")
		newline    = plant("header line break")
		connPass   = plant("connect password")
		connQuery  = plant("connect query")
		connHdr    = plant("connect header")
	)
	all := []secret{hdrLit, hdrEnv, urlPass, urlQuery, probePass, probeQuery, stdioLit, stdioEnv, argEnv, newline, connPass, connQuery, connHdr}
	environ := append(os.Environ(),
		"E2E_HDR="+hdrEnv.token,
		"E2E_STDIO="+stdioEnv.token,
		"E2E_ARG="+argEnv.token,
		"E2E_NEWLINE=Bearer "+newline.token+"\r\nX-Injected: 1",
	)

	target, err := targetserver.StartHTTP(context.Background(), targetserver.Config{Era: knobs.EraDual}, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = target.Close() })
	mcpURL := withCreds(target.URL, "me", urlPass, urlQuery)
	metricsURL := strings.Replace(withCreds(target.MetricsURL, "probe", probePass, probeQuery), "access_token", "token", 1)
	refused := testutil.ClosedAddr(t)

	load := "load: {rate: 10/1s, duration: 1s}\ncalls: [{tool: echo, arguments: {text: hi}}]\n"
	// A failing check makes run print the stdio servers' stderr tails.
	failing := "checks: [calls.total < 0]\n"
	cases := []secretCase{
		{"http", fmt.Sprintf(`name: secrets-http
target:
  http:
    url: %q
    headers: {Authorization: "Bearer %s", X-From-Env: "${E2E_HDR}"}
orphans:
  grace: 100ms
  probes: [{name: m, metric: {url: %q, name: mcpchaos_target_inflight}}]
`, mcpURL, hdrLit.token, metricsURL) + load + failing, false, 1, 0, "me:[redacted]@"},
		{"stdio", fmt.Sprintf(`name: secrets-stdio
target:
  stdio:
    command: [sh, -c, 'echo "env $API_KEY $FROM_ENV arg $0" >&2; exec "$1" serve --stdio', "${E2E_ARG}", %q]
    env: {API_KEY: %s, FROM_ENV: "${E2E_STDIO}"}
orphans: {grace: 100ms}
`, exe, stdioLit.token) + load + failing, true, 1, 0, "env [redacted] [redacted] arg [redacted]"},
		{"header with a line break", fmt.Sprintf(`target:
  http: {url: %q, headers: {X-Bad: "${E2E_NEWLINE}"}}
`, target.URL) + load, false, 2, 2, "headers.X-Bad: the value contains a line break"},
		{"connect fails", fmt.Sprintf(`target:
  http: {url: "http://me:%s@%s/mcp?token=%s", headers: {X-Key: %s}}
`, connPass.token, refused, connQuery.token, connHdr.token) + load, false, 2, 0, "connect to target http://me:[redacted]@"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			runSecretCase(t, exe, environ, all, tc)
		})
	}
}

// runSecretCase runs tc's scenario with every output written, then
// report in every format and validate, and searches everything they wrote
// for every secret of all.
func runSecretCase(t *testing.T, exe string, environ []string, all []secret, tc secretCase) {
	dir := t.TempDir()
	path := filepath.Join(dir, "scenario.yaml")
	if err := os.WriteFile(path, []byte(tc.scenario), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"run", path, "--quiet"}
	for _, o := range secretOutputs {
		if o.flag != "" {
			args = append(args, o.flag, filepath.Join(dir, fileName(o, tc.gzip)))
		}
	}
	code, stdout, stderr := runBinary(t, exe, environ, args...)
	t.Logf("stdout:\n%s\nstderr:\n%s", stdout, stderr)
	if code != tc.code {
		t.Fatalf("exit status %d, want %d", code, tc.code)
	}
	if !strings.Contains(stdout+stderr, tc.want) {
		t.Errorf("the output does not show %q", tc.want)
	}
	got := map[string][]byte{"stdout": []byte(stdout), "stderr": []byte(stderr)}
	for _, o := range secretOutputs {
		if o.flag == "" {
			continue
		}
		b, err := readOutput(filepath.Join(dir, fileName(o, tc.gzip)))
		switch {
		case errors.Is(err, os.ErrNotExist) && tc.code == 2:
			continue // the run stopped before writing it
		case err != nil:
			t.Fatalf("%s: %v", o.name, err)
		case len(b) == 0 && tc.code != 2:
			t.Errorf("%s is empty", o.name)
		}
		got[o.name] = b
	}
	if res := filepath.Join(dir, fileName(secretOutput{flag: "-o", file: "results.jsonl"}, tc.gzip)); got["results file"] != nil {
		for _, format := range reportFormats {
			_, rout, rerr := runBinary(t, exe, environ, "report", "--format", format, "--vegeta-format", "csv", res)
			got["report --format "+format], got["report stderr "+format] = []byte(rout), []byte(rerr)
		}
	}
	vcode, vout, verr := runBinary(t, exe, environ, "validate", path)
	if vcode != tc.validate {
		t.Errorf("validate exit status %d, want %d\n%s%s", vcode, tc.validate, vout, verr)
	}
	got["validate stdout"], got["validate stderr"] = []byte(vout), []byte(verr)
	for name, b := range got {
		for _, s := range all {
			if i := bytes.Index(b, []byte(s.token)); i >= 0 {
				t.Errorf("the %s secret is in %s: ...%s...", s.place, name, b[max(i-80, 0):min(i+len(s.token)+20, len(b))])
			}
		}
	}
}

// fileName is an output's file name; a results file is compressed when gz.
func fileName(o secretOutput, gz bool) string {
	if gz && o.flag == "-o" {
		return o.file + ".gz"
	}
	return o.file
}

// readOutput reads a file, decompressing a .gz one.
func readOutput(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil || !strings.HasSuffix(path, ".gz") {
		return b, err
	}
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("gunzip %s: %w", path, err)
	}
	return io.ReadAll(zr)
}

// runBinary runs the mcpchaos binary with env and returns its exit status,
// stdout and stderr.
func runBinary(t *testing.T, exe string, env []string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(exe, args...)
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		return ee.ExitCode(), stdout.String(), stderr.String()
	case err != nil:
		t.Fatalf("mcpchaos %s: %v", args[0], err)
	}
	return 0, stdout.String(), stderr.String()
}
