package main

import (
	"context"
	"fmt"
	"io"

	"github.com/mcpchaos/mcpchaos/internal/scenarios"
)

// helpCmd implements "mcpchaos help [COMMAND]": the general usage, or the
// command's own (what "mcpchaos COMMAND --help" prints).
func helpCmd(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	switch {
	case len(args) == 0:
		usage(stdout)
		return exitOK
	case args[0] == "-h" || args[0] == "--help" || args[0] == "help":
		fmt.Fprintln(stdout, "usage: mcpchaos help [COMMAND]")
		fmt.Fprintln(stdout)
		fmt.Fprintln(stdout, "Prints the list of commands, or COMMAND's usage and flags.")
		return exitOK
	case len(args) > 1:
		fmt.Fprintf(stderr, "mcpchaos help: want one command, got %d arguments\n", len(args))
		return exitUsage
	}
	for _, c := range commands() {
		if c.name == args[0] {
			return c.run(ctx, []string{"--help"}, stdout, stderr)
		}
	}
	fmt.Fprintf(stderr, "mcpchaos help: unknown command %q%s (run \"mcpchaos help\" for the list)\n", args[0], didYouMean(args[0]))
	return exitUsage
}

// didYouMean suggests the command closest to a misspelt one: ` (did you
// mean "run"?)`, or "".
func didYouMean(name string) string {
	var names []string
	for _, c := range commands() {
		names = append(names, c.name)
	}
	if s := scenarios.Suggest(name, names); s != "" {
		return fmt.Sprintf(" (did you mean %q?)", s)
	}
	return ""
}
