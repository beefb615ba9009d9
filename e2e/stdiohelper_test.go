package e2e

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/signal"
	"syscall"

	"github.com/mcpchaos/mcpchaos/internal/targetserver"
)

// helperBuiltinStdio serves the built-in target on stdio, with the knobs
// of knobsEnv, for a scenario that starts it as its stdio command: the
// black box on a pipe. When its session ends (stdin closed: the run is
// over) or it is told to stop (SIGTERM, which mcpchaos sends a server
// that has not exited 2 s after its stdin closed, as one still running
// leaked calls may not have), it writes its truth records (GET /calls,
// results.TruthPage) to the file named by truthEnv: the ledger the test
// holds the verdict against. A call still running then has no end, which
// the ledger counts as running past any grace.
const helperBuiltinStdio = "builtin-stdio"

func serveBuiltinStdio() int {
	cfg, err := knobConfig()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	s, err := targetserver.New(cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	served := make(chan error, 1)
	go func() { served <- s.ServeStdio(context.Background(), os.Stdin, os.Stdout) }()
	term := make(chan os.Signal, 1)
	signal.Notify(term, syscall.SIGTERM)
	var serveErr error
	select {
	case serveErr = <-served:
	case <-term:
	}
	rec := httptest.NewRecorder()
	s.CallsHandler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/calls", nil))
	tmp := os.Getenv(truthEnv) + ".tmp"
	if err := os.WriteFile(tmp, rec.Body.Bytes(), 0o600); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := os.Rename(tmp, os.Getenv(truthEnv)); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if serveErr != nil {
		fmt.Fprintln(os.Stderr, serveErr)
		return 1
	}
	return 0
}
