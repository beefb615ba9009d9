package main

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
)

// versionCmd implements "mcpchaos version": the tool version, then what
// the Go toolchain recorded in the binary — the module version (v1.2.3
// after `go install ...@v1.2.3`, "(devel)" for a build in a clone), the VCS
// revision and time when the build had them, and the Go version.
func versionCmd(_ context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		if args[0] == "-h" || args[0] == "--help" {
			fmt.Fprintln(stdout, "usage: mcpchaos version")
			fmt.Fprintln(stdout)
			fmt.Fprintln(stdout, "Prints the version, the module version and the VCS revision the binary was built from.")
			return exitOK
		}
		fmt.Fprintf(stderr, "mcpchaos version: takes no arguments, got %q\n", args[0])
		return exitUsage
	}
	fmt.Fprintf(stdout, "mcpchaos %s\n", version)
	info, ok := debug.ReadBuildInfo()
	if !ok {
		fmt.Fprintln(stdout, "module    unknown (no build information in this binary)")
		return exitOK
	}
	fmt.Fprintf(stdout, "module    %s %s\n", info.Main.Path, info.Main.Version)
	fmt.Fprintf(stdout, "revision  %s\n", revision(info.Settings))
	fmt.Fprintf(stdout, "go        %s %s/%s\n", info.GoVersion, runtime.GOOS, runtime.GOARCH)
	return exitOK
}

// revision describes the VCS state a binary was built from: "abc123…
// 2026-12-03T08:00:00Z (modified)", or "unknown" when the build did not
// record it (go run, -buildvcs=false, a build outside a checkout).
func revision(settings []debug.BuildSetting) string {
	var rev, at string
	modified := false
	for _, s := range settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if rev == "" {
		return "unknown (not recorded in this build)"
	}
	out := rev
	if at != "" {
		out += " " + at
	}
	if modified {
		out += " (modified)"
	}
	return out
}
