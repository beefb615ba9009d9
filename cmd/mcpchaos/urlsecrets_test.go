package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpchaos/mcpchaos/internal/testutil"
)

// URL credentials given to tools and init on the command line are masked
// in what they print, and init writes environment references for them
// (docs/secrets.md). The server is the built-in target over loopback,
// which ignores them.

// credURL puts a password and an API key into the built-in target's URL.
func credURL(base, pass, key string) string {
	return strings.Replace(base, "http://", "http://me:"+pass+"@", 1) + "?api_key=" + key + "&page=1"
}

// checkNoSecrets fails if any output holds one of the secrets.
func checkNoSecrets(t *testing.T, outputs map[string]string, secrets ...string) {
	t.Helper()
	for name, out := range outputs {
		for _, s := range secrets {
			if strings.Contains(out, s) {
				t.Errorf("%s shows the secret %q:\n%s", name, s, out)
			}
		}
	}
}

func TestToolsMasksURLCredentials(t *testing.T) {
	t.Parallel()
	base := builtinHTTP(t).URL
	tests := []struct {
		name, pass, key string
	}{
		{"long secrets", "S3cretPass", "K3yValue99"},
		{"short secrets, masked by position", "Qz", "K1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			url := credURL(base, tt.pass, tt.key)
			masked := strings.NewReplacer(tt.pass, "[redacted]", tt.key, "[redacted]").Replace(url)
			code, stdout, stderr := runCLI(t, context.Background(), "tools", url)
			if code != 0 {
				t.Fatalf("exit code %d\n%s", code, stderr)
			}
			checkNoSecrets(t, map[string]string{"stdout": stdout, "stderr": stderr}, ":"+tt.pass+"@", "api_key="+tt.key)
			if !strings.Contains(stdout, masked) {
				t.Errorf("the listing does not name the target %s:\n%s", masked, stdout)
			}
			// A connection error names the URL: masked too.
			bad := strings.Replace(url, "/mcp?", "/nope?", 1)
			code, stdout, stderr = runCLI(t, context.Background(), "tools", bad)
			if code != 2 {
				t.Fatalf("exit code %d, want 2\n%s", code, stderr)
			}
			checkNoSecrets(t, map[string]string{"stdout": stdout, "stderr": stderr}, ":"+tt.pass+"@", "api_key="+tt.key)
			if !strings.Contains(stderr, "me:[redacted]@") {
				t.Errorf("the error does not name the URL masked:\n%s", stderr)
			}
		})
	}
}

// TestInitWritesURLCredentialsAsReferences: the scenario init writes holds
// ${MCP_URL_...} references instead of the URL's password and key, the
// notes say what to export, and with them exported the scenario
// validates and runs against the same server. Not parallel: it sets the
// environment the scenario reads.
func TestInitWritesURLCredentialsAsReferences(t *testing.T) {
	const pass, key = "S3cretPass", "K3yValue99"
	base := builtinHTTP(t).URL
	path := filepath.Join(t.TempDir(), "s.yaml")
	code, stdout, stderr := runCLI(t, context.Background(), "init", "-o", path, credURL(base, pass, key))
	if code != 0 {
		t.Fatalf("exit code %d\n%s", code, stderr)
	}
	body, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	checkNoSecrets(t, map[string]string{"stdout": stdout, "stderr": stderr, "the scenario": string(body)}, pass, key)
	wantURL := strings.Replace(base, "http://", "http://me:${MCP_URL_PASSWORD}@", 1) + "?api_key=${MCP_URL_API_KEY}&page=1"
	if !strings.Contains(string(body), "url: "+yamlString(wantURL)) {
		t.Errorf("the scenario's URL is not %s:\n%s", wantURL, body)
	}
	for _, want := range []string{"the password in the URL is read from the environment variable MCP_URL_PASSWORD",
		`the URL's query parameter "api_key" is read from the environment variable MCP_URL_API_KEY`} {
		if !strings.Contains(stderr, want) {
			t.Errorf("no note says %q:\n%s", want, stderr)
		}
	}
	t.Setenv("MCP_URL_PASSWORD", pass)
	t.Setenv("MCP_URL_API_KEY", key)
	if code, _, stderr := runCLI(t, context.Background(), "validate", path); code != 0 {
		t.Fatalf("the scenario does not validate:\n%s\n%s", stderr, body)
	}
	// The starter's cancel fault made certain (tools_test.go).
	if err := os.WriteFile(path, []byte(certainCancel(body)), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr = runCLI(t, context.Background(), "run", "-q", "--duration", "500ms", path)
	if code != 0 {
		t.Fatalf("run exited %d\n%s\n%s", code, stdout, stderr)
	}
	checkNoSecrets(t, map[string]string{"run's stdout": stdout, "run's stderr": stderr}, pass, key)
}

// TestURLWithRefs: every kind of URL secret becomes a reference of its own;
// the rest of the URL stays literal.
func TestURLWithRefs(t *testing.T) {
	tests := []struct {
		name, url, want string
		notes           int
	}{
		{"no secrets", "http://127.0.0.1:1/mcp?page=${x}", "http://127.0.0.1:1/mcp?page=$${x}", 0},
		{"a token as the user name", "https://tok123@h/mcp", "https://${MCP_URL_USER}@h/mcp", 1},
		{"a user and password", "https://u:p%40ss@h/mcp", "https://u:${MCP_URL_PASSWORD}@h/mcp", 1},
		{"two tokens", "http://h/mcp?token=a&Access-Token=b&token=c", "http://h/mcp?token=${MCP_URL_TOKEN}&Access-Token=${MCP_URL_ACCESS_TOKEN}&token=${MCP_URL_TOKEN_2}", 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, notes := urlWithRefs(tt.url)
			if got != tt.want || len(notes) != tt.notes {
				t.Errorf("urlWithRefs(%q) = %q with %d notes %q, want %q with %d", tt.url, got, len(notes), notes, tt.want, tt.notes)
			}
		})
	}
}

// TestInitKeepsPlainHeaders: init -o - prints the scenario it would
// write: a header whose name does not look secret keeps its value (it is
// no secret of init's), a secret-looking one is a reference.
func TestInitKeepsPlainHeaders(t *testing.T) {
	t.Parallel()
	url := credURL(builtinHTTP(t).URL, "S3cretPass", "K3yValue99")
	code, stdout, stderr := runCLI(t, context.Background(), "init", "-o", "-", "-H", "X-Env: staging-blue", "-H", "Authorization: Bearer T0kenValue", url)
	if code != 0 {
		t.Fatalf("exit code %d\n%s", code, stderr)
	}
	checkNoSecrets(t, map[string]string{"stdout": stdout, "stderr": stderr}, "S3cretPass", "K3yValue99", "T0kenValue")
	for _, want := range []string{"X-Env: staging-blue", `Authorization: "${MCP_AUTHORIZATION}"`, "${MCP_URL_PASSWORD}"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("the scenario does not have %q:\n%s", want, stdout)
		}
	}
}

// TestProxyMasksUpstreamCredentials: the proxy's upstream URL is a secret
// of the proxy as a scenario's target URL is of run: the error that names
// an unreachable upstream masks its password and key, long or short.
func TestProxyMasksUpstreamCredentials(t *testing.T) {
	t.Parallel()
	closed := testutil.ClosedAddr(t)
	for _, secrets := range [][2]string{{"S3cretPass", "K3yValue99"}, {"Qz", "K1"}} {
		url := credURL("http://"+closed+"/mcp", secrets[0], secrets[1])
		path := writeScenario(t, "p.yaml", "listen: 127.0.0.1:0\nupstream: {http: {url: '"+url+"'}}\n")
		code, stdout, stderr := runCLI(t, context.Background(), "proxy", path)
		if code != 2 {
			t.Fatalf("exit code %d, want 2\n%s", code, stderr)
		}
		checkNoSecrets(t, map[string]string{"stdout": stdout, "stderr": stderr}, ":"+secrets[0]+"@", "api_key="+secrets[1])
		if !strings.Contains(stderr, "me:[redacted]@"+closed) {
			t.Errorf("the error does not name the upstream masked:\n%s", stderr)
		}
	}
}
