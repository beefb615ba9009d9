// Package toolschema reads the input schemas of an MCP server's tools —
// with a maintained JSON Schema library (santhosh-tekuri/jsonschema), never
// by hand — for what mcpchaos does with a server before any load: list its
// parameters (mcpchaos tools), make arguments a tool accepts (mcpchaos
// init), and check a scenario's calls against the server's tool list, each
// tool named and each call's arguments valid (mcpchaos run, before the
// first call).
//
// A schema is compiled as JSON Schema 2020-12 unless its $schema names
// another draft (draft 4, 6, 7 and 2019-09 are understood too). It is read
// from the tools/list answer only: a $ref to anything outside the schema
// is an error, never a fetch.
package toolschema
