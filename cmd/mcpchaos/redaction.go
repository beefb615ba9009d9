package main

import (
	"context"
	"io"
	"os"

	"github.com/mcpchaos/mcpchaos/internal/redact"
	"github.com/mcpchaos/mcpchaos/internal/scenarios"
	"github.com/mcpchaos/mcpchaos/internal/termsafe"
)

// Every output of mcpchaos goes through one set of secrets (package redact;
// docs/secrets.md says what is in it and the limits):
//
//   - run (main.go) wraps each command's stdout and stderr in a
//     redact.Writer (redactOutputs) and puts the set in the context;
//   - a command that reads a scenario adds the scenario's secrets as soon
//     as it has them (addSecrets), before it prints anything about it;
//   - every file a command writes is opened with createOutput (text or
//     JSON), or raw for a results file whose writer redacts each line
//     with the same set (openRunOutputs).
//
// A new output (a report format, a flag that writes a file) needs nothing
// more than to be written to the stdout or stderr it was given, or to a
// file opened here; never to os.Stdout, os.Stderr or a file of its own
// (main's interrupt messages, fixed text, are the one exception).

// rawStdout names the commands whose stdout is passed on untouched: serve
// --stdio speaks MCP on it (the bytes of the protocol, partial lines
// included, must reach the client as written), and serve reads no scenario.
var rawStdout = map[string]bool{"serve": true}

// redactOutputs wraps a command's stdout and stderr so that every line is
// redacted with one set, carried by the returned context. flush writes
// what the writers still hold (an unterminated last line).
//
// Standard error is for people only: it is also made terminal-safe
// (termsafe.Writer: every control character but line feeds and tabs
// escaped, whatever a server put in an error message or its own stderr).
// The live status line writes its own control sequences beneath it
// (statusLine).
func redactOutputs(ctx context.Context, command string, stdout, stderr io.Writer) (_ context.Context, out, errOut io.Writer, flush func()) {
	set := redact.New()
	ew := set.Writer(stderr)
	tw := termsafe.NewWriter(ew)
	if rawStdout[command] {
		return redact.NewContext(ctx, set), stdout, tw, func() {
			_ = tw.Flush()
			_ = ew.Flush()
		}
	}
	ow := set.Writer(stdout)
	return redact.NewContext(ctx, set), ow, tw, func() {
		_ = ow.Flush()
		_ = tw.Flush()
		_ = ew.Flush()
	}
}

// addSecrets adds a scenario's secrets to the set of the command's outputs.
func addSecrets(ctx context.Context, sc *scenarios.Scenario) {
	redact.FromContext(ctx).Merge(sc.Secrets)
}

// outputKind says how a file is redacted: text anywhere, JSON inside its
// string literals only (so that it stays valid JSON).
type outputKind int

const (
	textOutput outputKind = iota
	jsonOutput
	rawOutput // written as given: the caller redacts (results lines, vegeta gob)
)

// redactedFile is a file written through a redact.Writer.
type redactedFile struct {
	*redact.Writer
	f *os.File
}

func (r *redactedFile) Close() error {
	err := r.Flush()
	if cerr := r.f.Close(); err == nil {
		err = cerr
	}
	return err
}

// createOutput creates the file at path; what is written to it is
// redacted with the command's secrets. Close flushes and closes it.
func createOutput(ctx context.Context, path string, kind outputKind) (io.WriteCloser, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err // it names the path
	}
	set := redact.FromContext(ctx)
	if kind == jsonOutput {
		return &redactedFile{Writer: set.JSONWriter(f), f: f}, nil
	}
	return &redactedFile{Writer: set.Writer(f), f: f}, nil
}

// flushOutput writes out what w holds back (the live status line, which
// has no line end yet).
func flushOutput(w io.Writer) {
	if f, ok := w.(interface{ Flush() error }); ok {
		_ = f.Flush()
	}
}
