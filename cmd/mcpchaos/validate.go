package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/spf13/pflag"

	"github.com/mcpchaos/mcpchaos/internal/engine"
	"github.com/mcpchaos/mcpchaos/internal/scenarios"
	"github.com/mcpchaos/mcpchaos/internal/termsafe"
)

const validateUsage = `usage: mcpchaos validate [flags] SCENARIO.yaml...

Check scenario files without running them, exactly as "run" checks them
before it starts: strict decoding (unknown keys, wrong types, bad values,
built-in target knobs out of range, URLs), defaults, environment
references, the checks that span sections, the checks' keys, fault
parameters and throttling patterns. A file validate accepts, run accepts.
Each valid file prints one line on stdout:

  ok  FILE (name: NAME, target: TARGET, N calls, M faults, K checks)

Each problem prints on stderr as FILE:LINE:COLUMN: message. The exit code
is 0 when every file is valid and 2 otherwise (or when no file is given).

Environment references (${VAR}, ${VAR:-default}) are expanded as "run"
would, so an unset variable without a default is reported too.

flags:
  -h, --help   print this help
`

// validateCmd implements "mcpchaos validate FILE...".
func validateCmd(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fl := pflag.NewFlagSet("validate", pflag.ContinueOnError)
	fl.SetOutput(io.Discard)
	fl.Usage = func() {} // pflag itself handles -h and --help with ErrHelp
	printUsage := func(w io.Writer) { fmt.Fprint(w, validateUsage) }
	if err := fl.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			printUsage(stdout)
			return exitOK
		}
		fmt.Fprintf(stderr, "mcpchaos validate: %v\n", err)
		printUsage(stderr)
		return exitUsage
	}
	files := fl.Args()
	if len(files) == 0 {
		fmt.Fprintln(stderr, "mcpchaos validate: no scenario files given")
		printUsage(stderr)
		return exitUsage
	}
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintf(stderr, "mcpchaos validate: find the mcpchaos executable: %v\n", err)
		return exitUsage
	}
	code := exitOK
	for _, file := range files {
		prep, err := engine.Prepare(file, engine.Overrides{}, []string{self})
		if err != nil {
			code = exitUsage
			printProblems(stderr, "", file, err)
			continue
		}
		addSecrets(ctx, prep.Scenario)
		s := prep.Scenario
		fmt.Fprintf(stdout, "ok  %s (name: %s, target: %s, %s, %s, %s)\n", file, termsafe.Escape(s.Name), termsafe.Escape(s.Target.String()),
			count(len(s.Calls), "call"), count(len(s.Faults), "fault"), count(len(s.Checks), "check"))
	}
	return code
}

// printProblems prints what engine.Prepare found, one problem a line:
// FILE:LINE:COLUMN: message, each after prefix. validate and run print the
// same lines (run with its "mcpchaos run: " prefix).
func printProblems(w io.Writer, prefix, file string, err error) {
	var list scenarios.Errors
	var pathErr *fs.PathError
	var lines []string
	switch {
	case errors.As(err, &list):
		for _, e := range list {
			lines = append(lines, e.Error())
		}
	case errors.As(err, &pathErr):
		lines = []string{file + ": " + pathErr.Err.Error()}
	default:
		lines = strings.Split(err.Error(), "\n")
	}
	for _, l := range lines {
		fmt.Fprintln(w, prefix+l)
	}
}

// count formats "1 call", "3 calls".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
