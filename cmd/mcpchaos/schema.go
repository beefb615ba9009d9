package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/mcpchaos/mcpchaos/internal/faults"
	"github.com/mcpchaos/mcpchaos/internal/scenarios"
)

const schemaUsage = `usage: mcpchaos schema [flags]

Print the JSON Schema (draft 2020-12) of scenario files on stdout. It is
made from the tables the scenario decoder reads, so it names every key,
its type, its enum values and its range; rules that span keys (exactly one
load model, timeouts.max at least timeouts.idle) are left to "validate".

For completion and checking in an editor with the YAML language server,
start a scenario file with:

  # yaml-language-server: $schema=` + scenarios.SchemaID + `

or point $schema at a local copy (mcpchaos schema > scenario.schema.json).

flags:
  -h, --help   print this help
`

// schemaCmd implements "mcpchaos schema".
func schemaCmd(_ context.Context, args []string, stdout, stderr io.Writer) int {
	fl := pflag.NewFlagSet("schema", pflag.ContinueOnError)
	fl.SetOutput(io.Discard)
	fl.Usage = func() {}
	if err := fl.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			fmt.Fprint(stdout, schemaUsage)
			return exitOK
		}
		fmt.Fprintf(stderr, "mcpchaos schema: %v\n%s", err, schemaUsage)
		return exitUsage
	}
	if fl.NArg() > 0 {
		fmt.Fprintf(stderr, "mcpchaos schema: unexpected argument %q\n%s", fl.Arg(0), schemaUsage)
		return exitUsage
	}
	out, err := scenarioSchema()
	if err != nil {
		return fail(stderr, "schema", err)
	}
	_, _ = stdout.Write(out)
	return exitOK
}

// scenarioSchema returns the schema as indented JSON, ending in a newline.
func scenarioSchema() ([]byte, error) {
	out, err := json.MarshalIndent(scenarios.JSONSchema(faults.Schemas()), "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode the scenario schema: %w", err)
	}
	return append(out, '\n'), nil
}
