package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// A target URL that answers 404 stops the run before any load, and the
// error names the status, the URL and the likely cause.
func TestRunNamesAWrongPath(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	url := srv.URL + "/wrong"
	path := writeScenario(t, "wrong-path.yaml", `name: wrong-path
target:
  http: {url: "`+url+`"}
load: {rate: 5/1s, duration: 1s}
calls:
  - {tool: echo}
`)
	code, stdout, stderr := runCLI(t, context.Background(), "run", "-q", path)
	if code != 2 {
		t.Errorf("exit code %d, want 2\nstderr: %s", code, stderr)
	}
	for _, want := range []string{"404", url, "is the path right?"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr does not mention %q:\n%s", want, stderr)
		}
	}
	if strings.Contains(stdout, "Scenario") {
		t.Errorf("a run that could not start printed a summary:\n%s", stdout)
	}
}
