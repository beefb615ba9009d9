package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/pflag"
)

// newFlagSet returns a subcommand's flag set: flags listed in the order
// they are defined, and --help printing the usage lines ("" for a blank
// one) and then the flags, on stdout.
func newFlagSet(name string, stdout io.Writer, usage ...string) *pflag.FlagSet {
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	fs.SortFlags = false
	fs.SetOutput(stdout)
	fs.Usage = func() {
		for _, l := range usage {
			fmt.Fprintln(stdout, l)
		}
		fmt.Fprint(stdout, fs.FlagUsages())
	}
	return fs
}

// parseFlags parses a subcommand's arguments. When ok is false the command
// ends with code: 0 after --help (the usage is printed), 2 for a bad flag
// (named on stderr).
func parseFlags(fs *pflag.FlagSet, args []string, stderr io.Writer) (code int, ok bool) {
	err := fs.Parse(args)
	switch {
	case err == nil:
		return exitOK, true
	case errors.Is(err, pflag.ErrHelp):
		return exitOK, false
	}
	fmt.Fprintf(stderr, "mcpchaos %s: %v (see mcpchaos %s --help)\n", fs.Name(), err, fs.Name())
	return exitUsage, false
}

// parseScenarioFlags parses args and wants exactly one scenario file
// after the flags, as run and limits do.
func parseScenarioFlags(fs *pflag.FlagSet, cmd string, args []string, stderr io.Writer) (code int, ok bool) {
	if code, ok := parseFlags(fs, args, stderr); !ok {
		return code, false
	}
	if fs.NArg() != 1 {
		fmt.Fprintf(stderr, "mcpchaos %s: want exactly one scenario file (see mcpchaos %s --help)\n", cmd, cmd)
		return exitUsage, false
	}
	return exitOK, true
}
