package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"

	"github.com/spf13/pflag"

	"github.com/mcpchaos/mcpchaos/engine"
	"github.com/mcpchaos/mcpchaos/scenarios"
)

const validateUsage = `usage: mcpchaos validate [flags] SCENARIO.yaml...

Check scenario files without running them: strict decoding (unknown keys,
wrong types, bad values), defaults, environment references and the checks
that span sections. Each valid file prints one line on stdout:

  ok  FILE (name: NAME, target: TARGET, N calls, M faults, K checks)

Each problem prints on stderr as FILE:LINE:COLUMN: message. The exit code
is 0 when every file is valid and 2 otherwise (or when no file is given).

Environment references (${VAR}, ${VAR:-default}) are expanded as "run"
would, so an unset variable without a default is reported too.

flags:
  -h, --help   print this help
`

// validateCmd implements "mcpchaos validate FILE...".
func validateCmd(_ context.Context, args []string, stdout, stderr io.Writer) int {
	fl := pflag.NewFlagSet("validate", pflag.ContinueOnError)
	fl.SetOutput(io.Discard)
	fl.Usage = func() {} // pflag itself handles -h and --help with ErrHelp
	printUsage := func(w io.Writer) { fmt.Fprint(w, validateUsage) }
	if err := fl.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			printUsage(stdout)
			return 0
		}
		fmt.Fprintf(stderr, "mcpchaos validate: %v\n", err)
		printUsage(stderr)
		return 2
	}
	files := fl.Args()
	if len(files) == 0 {
		fmt.Fprintln(stderr, "mcpchaos validate: no scenario files given")
		printUsage(stderr)
		return 2
	}
	code := 0
	for _, file := range files {
		s, err := scenarios.Load(file)
		if err != nil {
			code = 2
			printLoadError(stderr, file, err)
			continue
		}
		if _, err := engine.Faults(s); err != nil {
			code = 2
			printLoadError(stderr, file, err)
			continue
		}
		if _, errs := engine.Checks(s); len(errs) > 0 {
			code = 2
			for _, e := range errs {
				fmt.Fprintln(stderr, e)
			}
			continue
		}
		fmt.Fprintf(stdout, "ok  %s (name: %s, target: %s, %s, %s, %s)\n", file, s.Name, s.Target,
			count(len(s.Calls), "call"), count(len(s.Faults), "fault"), count(len(s.Checks), "check"))
	}
	return code
}

// printLoadError prints one line per problem: FILE:LINE:COLUMN: message.
func printLoadError(w io.Writer, file string, err error) {
	var list scenarios.Errors
	var pathErr *fs.PathError
	switch {
	case errors.As(err, &list):
		for _, e := range list {
			fmt.Fprintln(w, e)
		}
	case errors.As(err, &pathErr):
		fmt.Fprintf(w, "%s: %v\n", file, pathErr.Err)
	default:
		fmt.Fprintf(w, "%s: %v\n", file, err)
	}
}

// count formats "1 call", "3 calls".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
