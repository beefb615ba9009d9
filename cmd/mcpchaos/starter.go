package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/mcpchaos/mcpchaos/client"
	"github.com/mcpchaos/mcpchaos/internal/termsafe"
	"github.com/mcpchaos/mcpchaos/internal/toolschema"
)

// The starter scenario `mcpchaos init` writes: what it found on the
// server, turned into a file that validates and runs as written, with
// comments saying what to change.

// starter is what the scenario is made from.
type starter struct {
	target   target
	server   serverInfo
	tools    []client.Tool
	protocol string // "auto", or the revision forced with --protocol

	fitted  bool        // entries and left are made (starterfit.go)
	entries []toolEntry // the tools written
	left    []skipped   // the tools left out
}

// starterOut is the file and what a person should know about it.
type starterOut struct {
	yaml     []byte
	calls    int
	slowest  string   // the tool the cancel fault acts on
	notes    []string // printed on stderr: arguments to fix, headers read from the environment
	disabled []string // destructive tools left commented out
}

// render writes the scenario, one section after the other.
func (s starter) render() (starterOut, error) {
	if !s.fitted {
		return s.fit()
	}
	var out starterOut
	var b strings.Builder
	line := func(format string, a ...any) { fmt.Fprintf(&b, format+"\n", a...) }
	name := s.server.Name
	if name == "" {
		name = "my-server"
	}
	line("# A starter scenario for %s %s (era %s over %s), written by `mcpchaos init`.",
		termsafe.Escape(name), termsafe.Escape(s.server.Version), s.server.Era, s.server.Transport)
	line("# Check it with `mcpchaos validate FILE` and run it with `mcpchaos run FILE`; every key is")
	line("# described in docs/scenarios.md. Change what the comments point at, then raise the load.")
	line("name: %s", yamlString(name))
	line("seed: 1                         # every random choice derives from it: the same seed replays the same faults")
	s.renderTarget(line, &out)
	line("load:")
	line("  # A modest open-model load: calls start on schedule whatever the server does. Raise the")
	line("  # rate, or ramp with stages: [{to: 200/1s, over: 60s}], once this run passes.")
	line("  rate: 5/1s")
	line("  duration: 30s")
	line("timeouts: {idle: 30s, max: 60s}  # idle is reset by progress, max never is")

	out.slowest = slowestTool(s.tools)
	if err := s.renderCalls(line, &out); err != nil {
		return out, err
	}
	s.renderFaults(line, out.slowest)
	renderClient(line)
	s.orphans(line)
	s.renderChecks(line)
	// The server's text in comments and strings keeps no control
	// character: the file is often printed (-o -, cat), and YAML reads
	// the escapes the same inside double quotes.
	out.yaml = []byte(termsafe.Lines(b.String()))
	return out, nil
}

// renderTarget writes the target and protocol sections (and the notes on
// the headers it reads from the environment).
func (s starter) renderTarget(line func(string, ...any), out *starterOut) {
	line("target:")
	if s.target.url != "" {
		line("  http:")
		url, notes := urlWithRefs(s.target.url)
		out.notes = append(out.notes, notes...)
		line("    url: %s", yamlString(url))
		if len(s.target.header) > 0 {
			line("    headers:")
			for _, k := range slices.Sorted(maps.Keys(s.target.header)) {
				v := escapeEnv(s.target.header[k])
				if secretHeader(k) {
					env := "MCP_" + strings.ToUpper(nonAlnum.ReplaceAllString(k, "_"))
					v = "${" + env + "}"
					out.notes = append(out.notes, fmt.Sprintf("the %s header is read from the environment variable %s: export it before validate and run", k, env))
				}
				line("      %s: %s", yamlString(k), yamlString(v))
			}
		} else {
			line("    # headers: {Authorization: \"Bearer ${TOKEN}\"}   # ${ENV} references are expanded")
		}
	} else {
		items := make([]string, len(s.target.command))
		for i, a := range s.target.command {
			items[i] = yamlString(escapeEnv(a))
		}
		line("  stdio:")
		line("    command: [%s]", strings.Join(items, ", "))
		line("    # env: {LOG_LEVEL: warn}       # added to the environment")
		line("    # processes: 4                 # more server processes, calls spread over them")
	}
	if s.protocol == "auto" {
		line("protocol: auto                  # detected %s; pin it with 2026-07-28, 2025-11-25 or 2025-06-18", s.server.Era)
	} else {
		line("protocol: %s", s.protocol)
	}
}

// renderCalls writes one calls entry per tool, a destructive one commented
// out; an error when no call is left.
func (s starter) renderCalls(line func(string, ...any), out *starterOut) error {
	line("calls:")
	line("  # One entry per tool, its arguments made from its inputSchema (required properties, defaults,")
	line("  # enums, examples, types, minimums): replace them with values your server expects.")
	line("  # weight sets how often a tool is picked relative to the others (default 1).")
	for _, e := range s.entries {
		t, entry, note := e.tool, e.lines, e.note
		if note != "" {
			out.notes = append(out.notes, note)
		}
		if destructive(t) {
			out.disabled = append(out.disabled, t.Name)
			line("  # %s says it is destructive (annotations.destructiveHint): uncomment it only against a test server.", yamlString(t.Name))
			for _, l := range entry {
				line("  # %s", l)
			}
			continue
		}
		out.calls++
		for _, l := range entry {
			line("  %s", l)
		}
		if s.server.Tasks && t.Name == out.slowest {
			line("    # The server offers tasks (io.modelcontextprotocol/tasks): uncomment to declare them on this")
			line("    # call, so that the server may answer with a task, polled with tasks/get and cancelled with")
			line("    # tasks/cancel (docs/long-running.md). Declaring it can change what the server does.")
			line("    # task: true")
		}
	}
	comments, notes := skippedComments(s.left)
	for _, c := range comments {
		line("  # %s", c)
	}
	out.notes = append(out.notes, notes...)
	if out.calls == 0 && len(out.disabled) == 0 {
		return fmt.Errorf("no tool of the server can be written in a scenario: %s", strings.Join(notes, "; "))
	}
	if out.calls == 0 {
		return fmt.Errorf("every tool of the server says it is destructive (%s): mcpchaos init calls none of them; write the calls by hand", strings.Join(out.disabled, ", "))
	}
	return nil
}

// renderFaults writes a cancel fault, on the slowest-looking tool when
// there is one.
func (s starter) renderFaults(line func(string, ...any), slowest string) {
	line("faults:")
	if slowest != "" {
		line("  # Cancel a fifth of the calls of the slowest-looking tool while they run: a correct server")
		line("  # stops the work (see docs/faults.md for disconnects, cancel races, stalled readers, ...).")
		line("  - {kind: cancel, probability: 0.2, after: \"uniform(100ms, 1s)\", tools: [%s]}", yamlString(slowest))
	} else {
		line("  - {kind: cancel, probability: 0.2, after: \"uniform(100ms, 1s)\"}")
	}
}

// renderClient writes, commented out, the client section a tool that asks
// for input needs: tools/list does not say which tools do, and declaring
// the capability can change what a server does.
func renderClient(line func(string, ...any)) {
	line("# A tool that asks for input while it runs (elicitation; in 2026 an input_required answer)")
	line("# fails with rpc_error unless the client declares it can answer. To accept every form, its")
	line("# fields made from the form's schema (docs/long-running.md), uncomment:")
	line("# client:")
	line("#   elicitation: {action: accept, generate: true}")
}

// renderChecks writes the checks a CI would start with.
func (s starter) renderChecks(line func(string, ...any)) {
	line("checks:                         # a CI would start with these; each is a key of the JSON summary")
	line("  - calls.transport_error == 0")
	line("  - calls.protocol_error == 0")
	line("  - calls.rpc_error == 0          # JSON-RPC errors: often arguments the server rejects, or input it asks for (client: above)")
	line("  - protocol.violations.total == 0")
	line("  - progress.violations.total == 0")
	line("  - cancellation.leftover_calls == 0  # fails, saying so, if no call was cut: then it tested nothing")
	if s.target.url != "" {
		line("  # - cancellation.orphaned == 0  # with a probe above: no work left running after the load")
	}
	line("  # - p99(call) < 2s              # set from the p99 of a first run")
}

// call writes one calls entry, and a note when its arguments do not yet
// match the tool's schema.
func (s starter) call(t client.Tool) (lines []string, note string) {
	lines = append(lines, "- tool: "+yamlString(t.Name))
	schema, err := toolschema.Compile(t.Name, t.InputSchema)
	if err != nil {
		lines = append(lines, "  # its inputSchema could not be read: "+oneLineText(err.Error()))
		return lines, fmt.Sprintf("%v: write its arguments by hand", err)
	}
	args, optional, err := schema.Example()
	if len(optional) > 0 {
		// Property names are the server's text: one line each, so none
		// can end the comment and write YAML of its own.
		names := make([]string, len(optional))
		for i, n := range optional {
			names[i] = oneLineText(n)
		}
		lines = append(lines, "  # optional, not set: "+strings.Join(names, ", "))
	}
	if n, ok := argsNote(t.Name, err); ok {
		lines = append(lines, "  # FIX: "+oneLineText(err.Error()))
		note = n
	} else if err != nil {
		lines = append(lines, "  # FIX: "+oneLineText(err.Error()))
		note = fmt.Sprintf("tool %q: the generated arguments do not match its inputSchema yet (%v): fix them in the file, or run will refuse them", t.Name, err)
	}
	if len(args) > 0 {
		raw, _ := json.Marshal(args) // JSON is YAML: the values keep their JSON types
		lines = append(lines, "  arguments: "+string(raw))
	}
	return lines, note
}

// orphans writes the orphans section: the probe that fits the target.
func (s starter) orphans(line func(string, ...any)) {
	line("orphans:")
	line("  grace: 2s                     # after the load, wait this long before looking for work still running")
	if s.target.url == "" {
		line("  probes:")
		line("    - process: {}               # CPU time and children of the server processes mcpchaos starts")
		line("  # A log line per finished call names each orphan exactly:")
		line("  #   - log: {stderr: true, done: 'call (?P<id>\\d+) (done|cancelled)'}")
		return
	}
	line("  # Work left running on an HTTP server is invisible from the client without a probe. Add")
	line("  # the one your server allows (docs/scenarios.md, orphans):")
	line("  # probes:")
	line("  #   - metric: {url: \"http://127.0.0.1:9464/metrics\", name: my_inflight_requests}  # a Prometheus gauge of calls in flight")
	line("  #   - log: {file: /var/log/server.log, done: 'request (?P<id>\\d+) (completed|aborted)'}  # a log line per finished call")
	line("  #   - process: {pid: 12345}     # the server's pid, when it runs on this machine")
}

// slowWords are words in a tool's name, description or parameter names
// that suggest it takes a while.
var slowWords = map[string]int{
	"slow": 3, "long": 2, "wait": 2, "sleep": 2, "progress": 2, "job": 1, "task": 1, "batch": 1,
	"steps": 1, "step": 1, "delay": 1, "ms": 1, "seconds": 1, "duration": 1, "timeout": 1,
	"search": 1, "crawl": 1, "download": 1, "build": 1, "run": 1, "generate": 1, "query": 1,
}

var wordRE = regexp.MustCompile(`[a-z]+`)

// slowestTool picks the tool the cancel fault acts on: the one whose name,
// description and parameter names score highest on slowWords (the name
// counts twice), the first on a tie; "" when no tool scores.
func slowestTool(tools []client.Tool) string {
	best, bestScore := "", 0
	for _, t := range tools {
		if destructive(t) {
			continue
		}
		score := 0
		for _, w := range wordRE.FindAllString(strings.ToLower(t.Name), -1) {
			score += 2 * slowWords[w]
		}
		text := strings.ToLower(t.Description)
		if s, err := toolschema.Compile(t.Name, t.InputSchema); err == nil {
			for _, p := range s.Params() {
				text += " " + strings.ToLower(p.Name)
			}
		}
		for _, w := range wordRE.FindAllString(text, -1) {
			score += slowWords[w]
		}
		if score > bestScore {
			best, bestScore = t.Name, score
		}
	}
	return best
}

// destructive reports whether a tool says so (annotations.destructiveHint).
func destructive(t client.Tool) bool {
	var a struct {
		Destructive *bool `json:"destructiveHint"`
	}
	return json.Unmarshal(t.Annotations, &a) == nil && a.Destructive != nil && *a.Destructive
}

var nonAlnum = regexp.MustCompile(`[^A-Za-z0-9]+`)

// secretHeader reports whether a header likely carries a credential,
// which the file reads from the environment instead of holding it.
func secretHeader(name string) bool {
	n := strings.ToLower(name)
	for _, w := range []string{"authorization", "cookie", "token", "key", "secret", "auth", "password"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// escapeEnv keeps a value literal where scenarios expand ${...}.
func escapeEnv(s string) string { return strings.ReplaceAll(s, "${", "$${") }

// yamlString quotes s as a YAML double-quoted scalar (JSON string syntax,
// which YAML accepts), or leaves a plain word alone.
func yamlString(s string) string {
	if plainWord.MatchString(s) && !yamlKeywords[strings.ToLower(s)] {
		return s
	}
	b, _ := json.Marshal(s)
	return string(b)
}

var plainWord = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_./-]*$`)

// yamlKeywords are plain words YAML reads as something other than a string.
var yamlKeywords = map[string]bool{"true": true, "false": true, "yes": true, "no": true, "on": true, "off": true, "null": true, "y": true, "n": true}
