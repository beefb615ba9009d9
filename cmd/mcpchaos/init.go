package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/spf13/pflag"

	"github.com/mcpchaos/mcpchaos/internal/termsafe"
)

// initFlags are the command line of `mcpchaos init`.
type initFlags struct {
	target *targetFlags
	output string
	force  bool
}

func newInitFlags(stdout io.Writer) (*pflag.FlagSet, *initFlags) {
	fs := newFlagSet("init", stdout,
		"usage: mcpchaos init [flags] TARGET",
		"",
		"Connects to an MCP server as run does, lists its tools and writes a starter scenario: the",
		"target, a modest open-model load, one call per tool with arguments made from its input",
		"schema, a cancel fault on the slowest-looking tool, the orphan probe that fits the target",
		"and the checks a CI would start with. The file validates and runs as written; its comments",
		"say what to change.",
		targetUsage,
		"Exit status: 0 written; 2 bad input, the server could not be reached or listed, or FILE",
		"exists (without --force).",
		"")
	f := &initFlags{target: addTargetFlags(fs)}
	fs.StringVarP(&f.output, "output", "o", "mcpchaos.yaml", "write the scenario to `FILE` (- for stdout)")
	fs.BoolVar(&f.force, "force", false, "overwrite FILE if it exists")
	return fs, f
}

// initCmd implements "mcpchaos init TARGET [-o FILE]": a starter scenario
// made from what the server lists.
func initCmd(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs, f := newInitFlags(stdout)
	if code, ok := parseFlags(fs, args, stderr); !ok {
		return code
	}
	t, err := parseTarget(fs, f.target)
	if err != nil {
		fmt.Fprintf(stderr, "mcpchaos init: %v (see mcpchaos init --help)\n", err)
		return exitUsage
	}
	t.addSecrets(ctx, false) // before anything about the target is printed
	if err := checkOverwrites(commandFiles(t.command), []fileUse{{"--output", f.output}}); err != nil {
		return fail(stderr, "init", err)
	}
	if f.output != "-" && !f.force {
		if _, err := os.Lstat(f.output); err == nil {
			fmt.Fprintf(stderr, "mcpchaos init: %s exists; choose another file with -o, or overwrite it with --force\n", f.output)
			return exitUsage
		}
	}
	c, list, err := t.listTools(ctx)
	if err != nil {
		return fail(stderr, "init", err)
	}
	warnRejected(stderr, "mcpchaos init", list.Rejected)
	if len(list.Tools) == 0 {
		fmt.Fprintf(stderr, "mcpchaos init: %s lists no tools: there is nothing to call\n", t.what())
		return exitUsage
	}
	s := starter{target: t, tools: list.Tools, protocol: f.target.protocol,
		server: serverInfo{Implementation: c.Server(), Era: c.Era(), Transport: c.Transport(), Target: t.String(), Tasks: c.OffersTasks()}}
	res, err := s.render()
	if err != nil {
		return fail(stderr, "init", err)
	}
	if err := writeNew(f.output, res.yaml, f.force, stdout); err != nil {
		return fail(stderr, "init", err)
	}
	for _, n := range res.notes {
		fmt.Fprintf(stderr, "mcpchaos init: note: %s\n", termsafe.Escape(n))
	}
	if f.output != "-" {
		fault := "a cancel fault on every tool"
		if res.slowest != "" {
			fault = "a cancel fault on " + res.slowest
		}
		fmt.Fprintf(stdout, "wrote %s: %s, %s\n", f.output, count(res.calls, "call"), fault)
		fmt.Fprintf(stdout, "next: mcpchaos validate %s && mcpchaos run %s\n", f.output, f.output)
	}
	return exitOK
}

// writeNew writes data to path ("-": to stdout), refusing to replace a
// file unless force: the file is created exclusively, so a file made since
// the first look is not overwritten either.
func writeNew(path string, data []byte, force bool, stdout io.Writer) error {
	if path == "-" {
		_, err := stdout.Write(data)
		return err
	}
	flags := os.O_WRONLY | os.O_CREATE | os.O_EXCL
	if force {
		flags = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	}
	f, err := os.OpenFile(path, flags, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("%s exists; choose another file with -o, or overwrite it with --force", path)
	}
	if err != nil {
		return fmt.Errorf("write the scenario: %w", err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("write the scenario %s: %w", path, err)
	}
	return f.Close()
}
