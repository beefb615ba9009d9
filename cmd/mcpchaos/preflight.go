package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/mcpchaos/mcpchaos/client"
	"github.com/mcpchaos/mcpchaos/internal/scenarios"
	"github.com/mcpchaos/mcpchaos/internal/termsafe"
	"github.com/mcpchaos/mcpchaos/internal/toolschema"
)

// toolsCheckTimeout bounds the tools/list walk before a run.
const toolsCheckTimeout = 30 * time.Second

// noSchemaCheckHint ends the messages of a failed check.
const noSchemaCheckHint = "nothing was sent to the server's tools; --no-schema-check sends the calls anyway"

// checkTools is what run does once connected and before any load (see
// engine.Options.BeforeLoad): every tool the scenario names is looked up
// in tools/list, and every call's arguments are validated against the
// tool's inputSchema (toolschema.Check). Tools whose schema cannot be
// read are warned about on stderr.
func checkTools(sc *scenarios.Scenario, stderr io.Writer) func(context.Context, *client.Client) error {
	return func(ctx context.Context, c *client.Client) error {
		ctx, cancel := client.WithBound(ctx, toolsCheckTimeout)
		defer cancel()
		l, err := c.ListToolPages(ctx)
		if errors.Is(err, client.ErrListCut) {
			return fmt.Errorf("check the scenario's tools before the load, within %s: %w (%s)", toolsCheckTimeout, err, noSchemaCheckHint)
		}
		if err != nil {
			return fmt.Errorf("check the scenario's tools before the load: %w (%s)", err, noSchemaCheckHint)
		}
		warnRejected(stderr, "mcpchaos run", l.Rejected)
		warnings, err := toolschema.Check(sc, l.Tools, l.Rejected...)
		for _, w := range warnings {
			fmt.Fprintf(stderr, "mcpchaos run: warning: %s\n", w)
		}
		return err
	}
}

// warnRejected says on stderr which tools the list leaves out, and why.
func warnRejected(stderr io.Writer, cmd string, rejected []client.RejectedTool) {
	for _, r := range rejected {
		fmt.Fprintf(stderr, "%s: warning: %s\n", cmd, termsafe.Escape(r.String()))
	}
}
