package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpchaos/mcpchaos/internal/redact"
)

// serve's stdout carries the protocol and passes untouched; every other
// command's stdout, and every stderr, is redacted with the context's set.
func TestRedactOutputs(t *testing.T) {
	for _, tt := range []struct {
		command   string
		rawStdout bool
	}{{"run", false}, {"validate", false}, {"serve", true}} {
		t.Run(tt.command, func(t *testing.T) {
			var out, errb bytes.Buffer
			ctx, stdout, stderr, flush := redactOutputs(context.Background(), tt.command, &out, &errb)
			redact.FromContext(ctx).Add("secret-value")
			stdout.Write([]byte("out secret-value\n"))
			stderr.Write([]byte("err secret-value"))
			flush()
			if got := out.String(); (got == "out secret-value\n") != tt.rawStdout {
				t.Errorf("stdout %q (raw: %v)", got, tt.rawStdout)
			}
			if got := errb.String(); got != "err [redacted]" {
				t.Errorf("stderr %q, want it redacted and flushed", got)
			}
		})
	}
}

// A JSON output stays valid JSON when a secret is a JSON word.
func TestCreateOutputJSON(t *testing.T) {
	set := redact.New("true", "key-12345")
	ctx := redact.NewContext(context.Background(), set)
	path := filepath.Join(t.TempDir(), "s.json")
	w, err := createOutput(ctx, path, jsonOutput)
	if err != nil {
		t.Fatal(err)
	}
	w.Write([]byte("{\n  \"pass\": true,\n  \"target\": \"key-12345\"\n}"))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil || m["pass"] != true || strings.Contains(string(b), "key-12345") {
		t.Errorf("wrote %s (%v)", b, err)
	}
}

// The status line sees the terminal behind a redacting writer.
func TestIsTerminalUnwraps(t *testing.T) {
	if isTerminal(redact.New().Writer(&bytes.Buffer{})) {
		t.Error("a buffer behind a redacting writer is a terminal")
	}
	if got, want := isTerminal(redact.New().Writer(os.Stderr)), isTerminal(os.Stderr); got != want {
		t.Errorf("isTerminal(wrapped stderr) = %v, stderr itself %v", got, want)
	}
}
