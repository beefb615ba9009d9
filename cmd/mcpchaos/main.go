// Command mcpchaos is a chaos and load-testing tool for MCP servers.
//
// Each subcommand lives in its own file; main only wires signals and exits.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// version is the tool version recorded in results files and reports.
var version = "0.1.0-dev"

// command is one subcommand: it parses its own flags from args and returns
// the process exit code.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, args []string, stdout, stderr io.Writer) int
	// stopping is what the first interrupt prints: what the command does
	// before it exits.
	stopping string
}

func commands() []command {
	return []command{
		{"run", "drive load and faults at an MCP server and print the summary", runCmd,
			"mcpchaos: interrupted: stopping load, draining, writing outputs (interrupt again to exit at once)"},
		{"limits", "find a server's rate limit and its shape, or its capacity under the scenario's checks", limitsCmd,
			"mcpchaos limits: interrupted: stopping the search, writing what was found (interrupt again to exit at once)"},
		{"serve", "run the built-in target MCP server (HTTP or stdio)", serveCmd,
			"mcpchaos serve: interrupted: stopping the server (interrupt again to exit at once)"},
		{"proxy", "a fault-injecting MCP proxy: test how clients and gateways react", proxyCmd,
			"mcpchaos proxy: interrupted: stopping, writing outputs (interrupt again to exit at once)"},
		{"tools", "list a server's tools and their parameters", toolsCmd, ""},
		{"init", "write a starter scenario for a server, from its tools", initCmd, ""},
		{"report", "merge results files and render text, json, html, hgrm, hlog, vegeta or junit", reportCmd, ""},
		{"validate", "check scenario files; errors name file:line:column", validateCmd, ""},
		{"schema", "print the JSON Schema of scenario files, for editors", schemaCmd, ""},
		{"version", "print the version, module version and VCS revision", versionCmd, ""},
		{"help", "print a command's usage: mcpchaos help COMMAND", helpCmd, ""},
		{"completion", "print a shell completion script: mcpchaos completion bash|zsh|fish", completionCmd, ""},
	}
}

// subreaper is set by main when `mcpchaos run` became a child subreaper:
// then every child of the process but the stdio servers is an orphan one
// of them left (never in tests, which start processes of their own).
var subreaper bool

// adaptProcs: `mcpchaos run` runs its load on one P while it needs little
// CPU (engine.Options.AdaptProcs). GOMAXPROCS is the whole process's, so
// only the real binary sets it, never a test that calls run in a process
// that runs other tests beside it.
var adaptProcs bool

func main() {
	if len(os.Args) > 1 && os.Args[1] == "run" {
		subreaper = becomeSubreaper()
		adaptProcs = true
	}
	// The first interrupt cancels ctx: commands drain and still write their
	// outputs. The second exits at once.
	ctx, cancel := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-sigs
		fmt.Fprintln(os.Stderr, stoppingMessage(os.Args[1:]))
		cancel()
		<-sigs
		fmt.Fprintln(os.Stderr, "mcpchaos: interrupted twice: exiting now")
		os.Exit(exitInterrupted)
	}()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// stoppingMessage is what the first interrupt prints for the command that
// args name.
func stoppingMessage(args []string) string {
	for _, c := range commands() {
		if len(args) > 0 && c.name == args[0] && c.stopping != "" {
			return c.stopping
		}
	}
	return "mcpchaos: interrupted: stopping (interrupt again to exit at once)"
}

// run dispatches to a subcommand and returns its exit status (exitcodes.go).
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" {
		usage(stdout)
		if len(args) == 0 {
			return exitUsage
		}
		return exitOK
	}
	for _, c := range commands() {
		if c.name == args[0] {
			// Every output goes through the secrets (redaction.go).
			ctx, stdout, stderr, flush := redactOutputs(ctx, c.name, stdout, stderr)
			defer flush()
			return c.run(ctx, args[1:], stdout, stderr)
		}
	}
	fmt.Fprintf(stderr, "mcpchaos: unknown command %q%s (run \"mcpchaos help\" for the list)\n", args[0], didYouMean(args[0]))
	return exitUsage
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "mcpchaos: chaos and load testing for MCP servers")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "usage: mcpchaos COMMAND [flags] [args]")
	fmt.Fprintln(w)
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-10s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Run \"mcpchaos help COMMAND\" (or \"mcpchaos COMMAND --help\") for a command's flags.")
}
