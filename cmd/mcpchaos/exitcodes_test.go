package main

import (
	"bytes"
	"errors"
	"fmt"
	"testing"
)

// TestExitCode: errors map to exit statuses in one place.
func TestExitCode(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want int
	}{
		{"no error is success", nil, exitOK},
		{"a plain error is bad input", errors.New(`scenario "x.yaml": no such file`), exitUsage},
		{"a run error", runError(errors.New("listen: address in use")), exitRunError},
		{"a wrapped run error keeps its status", fmt.Errorf("serve: %w", runError(errors.New("boom"))), exitRunError},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := exitCode(tc.err); got != tc.want {
				t.Errorf("exitCode(%v) = %d, want %d", tc.err, got, tc.want)
			}
		})
	}
}

// TestFailPrintsAndMaps: fail prints "mcpchaos CMD: error" and returns the
// error's status.
func TestFailPrintsAndMaps(t *testing.T) {
	var b bytes.Buffer
	if got := fail(&b, "serve", runError(errors.New(`listen "127.0.0.1:1": denied`))); got != exitRunError {
		t.Errorf("fail returned %d, want %d", got, exitRunError)
	}
	if want := "mcpchaos serve: listen \"127.0.0.1:1\": denied\n"; b.String() != want {
		t.Errorf("fail printed %q, want %q", b.String(), want)
	}
}
