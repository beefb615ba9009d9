package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpchaos/mcpchaos/internal/testutil"
)

var bin testutil.Binary

func TestMain(m *testing.M) {
	// `mcpchaos run` starts a builtin stdio target as its own executable
	// with "serve --stdio": in these tests that executable is the test
	// binary, which must then be mcpchaos.
	if os.Getenv(sdkStdioEnv) == "1" {
		os.Exit(serveSDKStdio()) // an SDK server over stdio (sdkserver_test.go)
	}
	if len(os.Args) > 1 && os.Args[1] == "serve" {
		os.Exit(run(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(testutil.Main(m, &bin))
}

// writeScenario writes a scenario file into a fresh directory.
func writeScenario(t *testing.T, name, src string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// runCLI runs "mcpchaos ARGS..." in process.
func runCLI(t *testing.T, ctx context.Context, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(ctx, args, &out, &errb)
	return code, out.String(), errb.String()
}

// readJSON decodes a JSON file into a generic map.
func readJSON(t *testing.T, path string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return m
}

// lookup follows a dotted key through nested maps.
func lookup(m map[string]any, key string) (any, bool) {
	var v any = m
	for _, seg := range strings.Split(key, ".") {
		mm, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = mm[seg]; !ok {
			return nil, false
		}
	}
	return v, true
}

// num returns a numeric key of a summary, failing the test when absent.
func num(t *testing.T, m map[string]any, key string) float64 {
	t.Helper()
	v, ok := lookup(m, key)
	f, isNum := v.(float64)
	if !ok || !isNum {
		t.Fatalf("summary key %s = %v (present %v), want a number", key, v, ok)
	}
	return f
}

// TestStoppingMessage: the first interrupt's message names what the
// command does.
func TestStoppingMessage(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{name: "run", args: []string{"run", "x.yaml"}, want: "stopping load, draining, writing outputs"},
		{name: "serve", args: []string{"serve", "--stdio"}, want: "mcpchaos serve: interrupted: stopping the server"},
		{name: "validate", args: []string{"validate", "x.yaml"}, want: "mcpchaos: interrupted: stopping"},
		{name: "no command", args: nil, want: "mcpchaos: interrupted: stopping"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := stoppingMessage(tt.args); !strings.Contains(got, tt.want) {
				t.Errorf("stoppingMessage(%q) = %q, want it to contain %q", tt.args, got, tt.want)
			}
		})
	}
}
