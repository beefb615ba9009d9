package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/mcpchaos/mcpchaos/report"
)

// The exit statuses of mcpchaos, as docs/commands.md documents them. Every
// command returns one of these; only main exits.
const (
	// exitOK: success; for run, limits and report every check passed and
	// no verdict is a violation.
	exitOK = 0
	// exitCheckFailed: a check failed, or a verdict is a violation.
	exitCheckFailed = 1
	// exitRunError: serve or proxy failed while serving, or could not
	// write its outputs at the end.
	exitRunError = 1
	// exitUsage: bad input, or the command could not start: a bad flag or
	// argument, a scenario that does not validate, a target that cannot be
	// started or reached, an output that cannot be written.
	exitUsage = 2
	// exitClientLimit: the run's own process ran out of file descriptors,
	// ports, memory or CPU (the summary's client_limits): the server was
	// not given the load asked for, so it was not judged.
	exitClientLimit = 3
	// exitInterrupted: stopped by an interrupt (SIGINT or SIGTERM), after
	// every output was written; or at once, on the second interrupt.
	exitInterrupted = 130
)

// failCode is the exit status of a summary that did not pass:
// exitClientLimit when the client hit a limit of its own, else
// exitCheckFailed.
func failCode(s *report.Summary) int {
	if s.ClientLimits.Hit {
		return exitClientLimit
	}
	return exitCheckFailed
}

// exitError is an error that says which exit status it ends its command
// with.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// runError marks err as a failure while serving (exitRunError), not as bad
// input.
func runError(err error) error { return &exitError{code: exitRunError, err: err} }

// exitCode maps an error to its command's exit status, in one place: nil
// is exitOK, an exitError says its own, and any other error is exitUsage (a
// command's error is bad input or a run that could not start: a failed
// call is data in the results, never an error).
func exitCode(err error) int {
	if err == nil {
		return exitOK
	}
	if e, ok := errors.AsType[*exitError](err); ok {
		return e.code
	}
	return exitUsage
}

// fail prints err on stderr as "mcpchaos CMD: err" and returns its exit
// status (exitCode).
func fail(stderr io.Writer, cmd string, err error) int {
	fmt.Fprintf(stderr, "mcpchaos %s: %v\n", cmd, err)
	return exitCode(err)
}
