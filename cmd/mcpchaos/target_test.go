package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestTargetBadInput: each way a TARGET can be wrong gives one line on
// stderr that says what was tried and what came back, exit status 2, no
// stack trace — for tools and init alike.
func TestTargetBadInput(t *testing.T) {
	t.Parallel()
	notFound := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(notFound.Close)
	html := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte("<html><body><h1>Welcome to nginx!</h1></body></html>"))
	}))
	t.Cleanup(html.Close)
	tests := []struct {
		name string
		args []string
		want []string // in the first line of stderr
		tail string   // in a later line (the server's stderr), if any
	}{
		{name: "unreachable URL", args: []string{"http://127.0.0.1:1/mcp"},
			want: []string{"http://127.0.0.1:1/mcp", "connection refused"}},
		{name: "URL answering 404", args: []string{notFound.URL + "/wrong"},
			want: []string{notFound.URL + "/wrong", "HTTP status 404", "is the path right?"}},
		{name: "URL answering HTML", args: []string{html.URL + "/"},
			want: []string{html.URL, "text/html", "Welcome to nginx"}},
		{name: "command that does not exist", args: []string{"--", "/nonexistent/mcp-server", "--flag"},
			want: []string{`"/nonexistent/mcp-server`, "no such file or directory"}},
		{name: "command that exits at once", args: []string{"--", "sh", "-c", "echo config file missing >&2; exit 3"},
			want: []string{`stdio server "sh -c`, "exit status 3", "the last lines of its stderr"}, tail: "config file missing"},
		{name: "not a URL", args: []string{"ftp://example.com/mcp"}, want: []string{`invalid URL "ftp://example.com/mcp"`, "-- COMMAND"}},
		{name: "no target", args: nil, want: []string{"no TARGET"}},
		{name: "two targets", args: []string{"http://127.0.0.1:1/mcp", "node"}, want: []string{"want one TARGET"}},
		{name: "URL and command", args: []string{"http://127.0.0.1:1/mcp", "--", "node"}, want: []string{"not both"}},
		{name: "header for stdio", args: []string{"-H", "X-A: b", "--", "node"}, want: []string{"--header applies to HTTP targets only"}},
		{name: "bad header", args: []string{"-H", "X A: b", "http://127.0.0.1:1/mcp"}, want: []string{`invalid header name "X A"`}},
		{name: "bad protocol", args: []string{"--protocol", "2024", "http://127.0.0.1:1/mcp"}, want: []string{`unknown protocol "2024"`}},
	}
	for _, cmd := range []string{"tools", "init"} {
		for _, tt := range tests {
			t.Run(cmd+"/"+tt.name, func(t *testing.T) {
				t.Parallel()
				args := append([]string{cmd, "--timeout", "10s"}, tt.args...)
				if cmd == "init" {
					args = append([]string{cmd, "-o", filepath.Join(t.TempDir(), "s.yaml")}, args[1:]...)
				}
				code, stdout, stderr := runCLI(t, context.Background(), args...)
				if code != 2 {
					t.Fatalf("exit %d, want 2\nstdout: %s\nstderr: %s", code, stdout, stderr)
				}
				lines := strings.Split(strings.TrimRight(stderr, "\n"), "\n")
				if !strings.HasPrefix(lines[0], "mcpchaos "+cmd+": ") {
					t.Errorf("first line %q does not name the command", lines[0])
				}
				for _, w := range tt.want {
					if !strings.Contains(lines[0], w) {
						t.Errorf("first line does not say %q:\n%s", w, stderr)
					}
				}
				if tt.tail != "" && !strings.Contains(strings.Join(lines[1:], "\n"), tt.tail) {
					t.Errorf("stderr does not show the server's own words %q:\n%s", tt.tail, stderr)
				}
				if tt.tail == "" && len(lines) != 1 {
					t.Errorf("stderr has %d lines, want one:\n%s", len(lines), stderr)
				}
				if regexp.MustCompile(`goroutine \d|panic:|\.go:\d+`).MatchString(stderr) {
					t.Errorf("stderr has a stack trace:\n%s", stderr)
				}
			})
		}
	}
}

// TestInitRefusesToOverwrite: an existing file is kept unless --force.
func TestInitRefusesToOverwrite(t *testing.T) {
	t.Parallel()
	url := builtinHTTP(t).URL
	path := filepath.Join(t.TempDir(), "mine.yaml")
	if err := os.WriteFile(path, []byte("my own work\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI(t, context.Background(), "init", "-o", path, url)
	if code != 2 || !strings.Contains(stderr, path+" exists") || !strings.Contains(stderr, "--force") {
		t.Fatalf("exit %d, stderr %q; want 2 and a message naming the file and --force", code, stderr)
	}
	if b, _ := os.ReadFile(path); string(b) != "my own work\n" {
		t.Fatalf("the file was changed: %q", b)
	}
	code, _, stderr = runCLI(t, context.Background(), "init", "--force", "-o", path, url)
	if code != 0 {
		t.Fatalf("init --force exited %d: %s", code, stderr)
	}
	if b, _ := os.ReadFile(path); !strings.Contains(string(b), "tool: slow_task") {
		t.Fatalf("--force did not write the scenario:\n%s", b)
	}
	code, stdout, _ := runCLI(t, context.Background(), "init", "-o", "-", url)
	if code != 0 || !strings.HasPrefix(stdout, "# A starter scenario for mcpchaos-target") {
		t.Fatalf("init -o - exited %d and printed:\n%s", code, stdout)
	}
}
