package scenarios

import (
	"errors"
	"strings"
	"testing"
)

// testEnv is the environment the tests expand references against.
func testEnv(name string) (string, bool) {
	v, ok := map[string]string{"TOKEN": "s3cret", "EMPTY": "", "PORT": "8080"}[name]
	return v, ok
}

// lines joins YAML lines, so that line numbers in a case are easy to read.
func lines(ls ...string) string { return strings.Join(ls, "\n") + "\n" }

// head is a valid start of a scenario (lines 1-3); cases append to it.
var head = []string{
	"target: {builtin: {}}",
	"load: {rate: 10/1s, duration: 2s}",
	"calls: [{tool: echo}]",
}

func withHead(ls ...string) string { return lines(append(append([]string{}, head...), ls...)...) }

// parseErrorCase is a scenario file that must fail to parse, with every
// error it must report.
type parseErrorCase struct {
	name string
	yaml string
	want []string // every error, exactly, in order
}

// parseErrorCases are the cases of TestParseErrors, grouped by kind of error.
var parseErrorCases = []parseErrorCase{
	// Syntax and document shape.
	{"syntax error", lines("a: [1, 2"), []string{`x.yaml:1:4: sequence end token ']' not found`}},
	{"tab indentation", lines("a:", "\tb: 1"), []string{`x.yaml:2:1: found character '	' that cannot start any token`}},
	{"duplicate key", lines("name: a", "name: b"), []string{`x.yaml:2:1: mapping key "name" already defined at [1:1]`}},
	{"empty file", "", []string{`x.yaml: empty scenario file`}},
	{"comment only", "# nothing\n", []string{`x.yaml: empty scenario file`}},
	{"two documents", lines("name: a", "---", "name: b"), []string{`x.yaml:3:1: a scenario file holds one YAML document, found 2`}},
	{"not a mapping", "hello\n", []string{`x.yaml:1:1: want a mapping, got "hello" (a string)`}},
	{"unknown alias", withHead("faults: *nope"), []string{`x.yaml:4:9: unknown alias "*nope" (an anchor &nope must come before it)`}},
	{"custom tag", withHead("name: !secret x"), []string{`x.yaml:4:7: unsupported tag "!secret"`}},

	// Unknown and missing keys.
	{"unknown top-level key", lines("trget: {builtin: {}}", "load: {rate: 1/s, duration: 1s}", "calls: [{tool: a}]"), []string{
		`x.yaml:1:1: unknown key "trget" (known: name, seed, protocol, target, load, timeouts, calls, faults, orphans, progress, throttling, identities, client, gateway, checks, fail_on_violation)`,
		`x.yaml:1:1: missing required key "target"`,
	}},
	{"identity named twice, one without headers", withHead("identities: [{name: a, headers: {X-Api-Key: k}}, {name: a}]"), []string{
		`x.yaml:4:50: identities[1]: missing required key "headers"`,
		`x.yaml:4:57: identities[1].name: identity "a" is named twice`,
	}},
	{"identities on a stdio target", lines("target: {builtin: {transport: stdio}}", "load: {rate: 10/1s, duration: 2s}", "calls: [{tool: echo}]",
		"identities: [{name: a, headers: {X-Api-Key: k}}]"), []string{
		`x.yaml:4:13: identities: applies only to an HTTP target (http, or builtin with transport http): a header set needs HTTP`,
	}},
	{"unknown nested key", withHead("progress: {grace: 1s, stal: 2s}"), []string{
		`x.yaml:4:23: progress: unknown key "stal" (known: grace, flood_hz, stall)`,
	}},
	{"missing everything", lines("name: x"), []string{
		`x.yaml:1:1: missing required key "target"`,
		`x.yaml:1:1: missing required key "load"`,
		`x.yaml:1:1: missing required key "calls"`,
	}},
	{"null required value", lines("target:", "load: {rate: 1/s, duration: 1s}", "calls: [{tool: a}]"), []string{
		`x.yaml:1:1: target: missing value`,
	}},
	{"missing nested key", lines("target:", "  http:", "    pid: 12", "load: {rate: 1/s, duration: 1s}", "calls: [{tool: a}]"), []string{
		`x.yaml:2:3: target.http: missing required key "url"`,
	}},

	// Wrong types.
	{"string for integer", withHead("seed: '42'"), []string{`x.yaml:4:7: seed: want an integer, got "42" (a string)`}},
	{"float for integer", withHead("seed: 4.5"), []string{`x.yaml:4:7: seed: want an integer, got "4.5" (a number)`}},
	{"integer out of range", withHead("seed: 99999999999999999999"), []string{`x.yaml:4:7: seed: integer "99999999999999999999" is out of range`}},
	{"string for bool", lines("target: {builtin: {endless: yes}}", "load: {rate: 1/s, duration: 1s}", "calls: [{tool: a}]"), []string{
		`x.yaml:1:29: target.builtin.endless: want true or false, got "yes" (a string)`,
	}},
	{"mapping for string", withHead("name: {a: b}"), []string{`x.yaml:4:7: name: want a string, got a mapping`}},
	{"scalar for mapping", withHead("orphans: 2s"), []string{`x.yaml:4:10: orphans: want a mapping, got "2s" (a string)`}},
	{"scalar for sequence", withHead("checks: p99(call) < 1s"), []string{`x.yaml:4:9: checks: want a sequence, got "p99(call) < 1s" (a string)`}},
	{"sequence for duration", withHead("progress: {stall: [1s]}"), []string{`x.yaml:4:19: progress.stall: want a scalar, got a sequence`}},
	{"non-string argument key", lines("target: {builtin: {}}", "load: {rate: 1/s, duration: 1s}", "calls: [{tool: a, arguments: {1: x}}]"), []string{
		`x.yaml:3:31: calls[0].arguments: keys must be strings, got "1" (an integer)`,
	}},
	{"infinite argument", lines("target: {builtin: {}}", "load: {rate: 1/s, duration: 1s}", "calls: [{tool: a, arguments: {x: .inf}}]"), []string{
		`x.yaml:3:34: calls[0].arguments.x: ".inf" (a number) is not a JSON number`,
	}},

	// Bad values of custom types, at the value.
	{"bad rate", lines("target: {builtin: {}}", "load:", "  duration: 1s", "  rate: 50/x", "calls: [{tool: a}]"), []string{
		`x.yaml:4:9: load.rate: invalid rate "50/x": period "x" is not a duration or a unit such as s or 1m`,
	}},
	{"rate without period", lines("target: {builtin: {}}", "load: {rate: 50, duration: 1s}", "calls: [{tool: a}]"), []string{
		`x.yaml:2:14: load.rate: invalid rate "50": missing the period (write 50/1s)`,
	}},
	{"zero rate", lines("target: {builtin: {}}", "load: {rate: 0/1s, duration: 1s}", "calls: [{tool: a}]"), []string{
		`x.yaml:2:14: load.rate: invalid rate "0/1s": count must be positive`,
	}},
	{"bad duration", lines("target: {builtin: {}}", "load: {rate: 1/s, duration: 2}", "calls: [{tool: a}]"), []string{
		`x.yaml:2:29: load.duration: invalid duration "2": want a Go duration such as 250ms, 2s or 1m30s`,
	}},
	{"negative duration", withHead("orphans: {grace: -1s}"), []string{`x.yaml:4:18: orphans.grace: invalid duration "-1s": must not be negative`}},
	{"zero where positive", withHead("timeouts: {idle: 0s}"), []string{`x.yaml:4:18: timeouts.idle: must be positive, got "0s"`}},
	{"bad distribution", withHead("faults: [{kind: cancel, after: 'uniform(2s, 1s)'}]"), []string{
		`x.yaml:4:32: faults[0].after: invalid distribution "uniform(2s, 1s)": low 2s is above high 1s`,
	}},
	{"unknown distribution", withHead("faults: [{kind: cancel, after: 'normal(1s)'}]"), []string{
		`x.yaml:4:32: faults[0].after: invalid distribution "normal(1s)": unknown function "normal" (want uniform or exp)`,
	}},
	{"probability above 1", withHead("faults: [{kind: cancel, after: 1s, probability: 1.5}]"), []string{
		`x.yaml:4:49: faults[0].probability: probability 1.5 is outside 0..1`,
	}},
	{"negative probability", lines("target: {builtin: {leak_on_cancel: -0.1}}", "load: {rate: 1/s, duration: 1s}", "calls: [{tool: a}]"), []string{
		`x.yaml:1:36: target.builtin.leak_on_cancel: invalid value "-0.1" (want a probability from 0 to 1)`,
	}},
	{"knob out of range", lines("target:", "  builtin:", "    progress_flood_hz: 5000", "    stop_delay: 25h", "    rate_limit: 2000000/1s", "load: {rate: 1/s, duration: 1s}", "calls: [{tool: a}]"), []string{
		`x.yaml:3:24: target.builtin.progress_flood_hz: invalid value "5000" (want a number from 0 to 1000)`,
		`x.yaml:4:17: target.builtin.stop_delay: invalid value "25h" (want a duration from 0 to 24h)`,
		`x.yaml:5:17: target.builtin.rate_limit: invalid value "2000000/1s" (want N/PERIOD with N from 1 to 1000000 and PERIOD above zero)`,
	}},
	{"knob of the wrong type", lines("target: {builtin: {endless: 'yes', stall_after: 1.5, rate_limit: fast}}", "load: {rate: 1/s, duration: 1s}", "calls: [{tool: a}]"), []string{
		`x.yaml:1:29: target.builtin.endless: want true or false, got "yes" (a string)`,
		`x.yaml:1:49: target.builtin.stall_after: want an integer, got "1.5" (a number)`,
		`x.yaml:1:66: target.builtin.rate_limit: invalid rate "fast": want N/PERIOD such as 50/1s or 3000/1m`,
	}},
	{"bad protocol", withHead("protocol: 2025-03-26"), []string{
		`x.yaml:4:11: protocol: invalid value "2025-03-26" (want one of: auto, 2026-07-28, 2025-11-25, 2025-06-18, 2024-11-05)`,
	}},
	{"bad enum", lines("target: {builtin: {era: 2027}}", "load: {rate: 1/s, duration: 1s}", "calls: [{tool: a}]"), []string{
		`x.yaml:1:25: target.builtin.era: invalid value "2027" (want one of: dual, 2026, 2025)`,
	}},
	{"bad regexp", withHead("throttling: {message: '(x'}"), []string{
		"x.yaml:4:23: throttling.message: invalid regular expression \"(x\": error parsing regexp: missing closing ): `(x`",
	}},
	{"bad url", lines("target: {http: {url: 'ftp://h/x'}}", "load: {rate: 1/s, duration: 1s}", "calls: [{tool: a}]"), []string{
		`x.yaml:1:22: target.http.url: invalid URL "ftp://h/x": scheme must be http or https`,
	}},
	{"url port above 65535", lines("target: {http: {url: 'http://127.0.0.1:70000/mcp'}}", "load: {rate: 1/s, duration: 1s}", "calls: [{tool: a}]"), []string{
		`x.yaml:1:22: target.http.url: invalid URL "http://127.0.0.1:70000/mcp": port 70000 is not between 1 and 65535`,
	}},
	{"url with a port and no host", lines("target: {http: {url: 'http://:8080/mcp'}}", "load: {rate: 1/s, duration: 1s}", "calls: [{tool: a}]"), []string{
		`x.yaml:1:22: target.http.url: invalid URL "http://:8080/mcp": missing host`,
	}},
	{"url without host", lines("target: {http: {url: 'http:///mcp'}}", "load: {rate: 1/s, duration: 1s}", "calls: [{tool: a}]"), []string{
		`x.yaml:1:22: target.http.url: invalid URL "http:///mcp": missing host`,
	}},
	{"bad json pointer", withHead("orphans: {probes: [{tool: {name: t, pointer: 'x/y'}}]}"), []string{
		`x.yaml:4:46: orphans.probes[0].tool.pointer: invalid JSON pointer "x/y": must be empty or start with /`,
	}},
	{"bad json pointer escape", withHead("orphans: {probes: [{tool: {name: t, pointer: '/a~2'}}]}"), []string{
		`x.yaml:4:46: orphans.probes[0].tool.pointer: invalid JSON pointer "/a~2": ~ must be followed by 0 or 1`,
	}},
	{"bad metric name", withHead("orphans: {probes: [{metric: {url: 'http://h/m', name: 1x}}]}"), []string{
		`x.yaml:4:55: orphans.probes[0].metric.name: invalid metric name "1x"`,
	}},

	// Checks, at the check.
	{"bad check operator", withHead("checks:", "  - a.b = 1"), []string{
		`x.yaml:5:5: checks[0]: invalid check "a.b = 1": unknown operator at "= 1" (want one of <= >= == != < >)`,
	}},
	{"bad check histogram", withHead("checks:", "  - ok.count > 0", "  - p99(calls) < 1s"), []string{
		`x.yaml:6:5: checks[1]: invalid check "p99(calls) < 1s": unknown histogram "calls" (known: call, service, first_progress, progress_gap, timeout_error)`,
	}},
	{"bad check value", withHead("checks: ['p99(call) < fast']"), []string{
		`x.yaml:4:10: checks[0]: invalid check "p99(call) < fast": value "fast" is not a number or a duration such as 3s`,
	}},
	{"check not a string", withHead("checks:", "  - {a: 1}"), []string{`x.yaml:5:5: checks[0]: want a string, got a mapping`}},

	// Ranges and combinations.
	{"empty tool", lines("target: {builtin: {}}", "load: {rate: 1/s, duration: 1s}", "calls: [{tool: ''}]"), []string{`x.yaml:3:16: calls[0].tool: must not be empty`}},
	{"no calls", lines("target: {builtin: {}}", "load: {rate: 1/s, duration: 1s}", "calls: []"), []string{`x.yaml:3:8: calls: want at least one call`}},
	{"zero weight", lines("target: {builtin: {}}", "load: {rate: 1/s, duration: 1s}", "calls: [{tool: a, weight: 0}]"), []string{`x.yaml:3:27: calls[0].weight: must be greater than 0, got 0`}},
	{"two targets", lines("target:", "  builtin: {}", "  http: {url: 'http://h'}", "load: {rate: 1/s, duration: 1s}", "calls: [{tool: a}]"), []string{
		`x.yaml:3:3: target: want exactly one of builtin, stdio or http, got both builtin and http`,
	}},
	{"no target kind", lines("target: {}", "load: {rate: 1/s, duration: 1s}", "calls: [{tool: a}]"), []string{
		`x.yaml:1:1: target: want exactly one of builtin, stdio or http`,
	}},
	{"no load model", lines("target: {builtin: {}}", "load:", "  duration: 1s", "calls: [{tool: a}]"), []string{
		`x.yaml:2:1: load: want one of rate, stages or concurrency`,
	}},
	{"concurrency with rate", lines("target: {builtin: {}}", "load: {rate: 1/s, concurrency: 4, duration: 1s}", "calls: [{tool: a}]"), []string{
		`x.yaml:2:32: load.concurrency: cannot be combined with rate or stages (concurrency is the closed model, rate and stages the open one)`,
	}},
	{"concurrency below 1", lines("target: {builtin: {}}", "load: {concurrency: 0, duration: 1s}", "calls: [{tool: a}]"), []string{
		`x.yaml:2:21: load.concurrency: must be at least 1, got 0`,
	}},
	{"missing duration", lines("target: {builtin: {}}", "load: {rate: 1/s}", "calls: [{tool: a}]"), []string{
		`x.yaml:2:1: load: missing required key "duration" (it may be left out only with stages)`,
	}},
	{"stage over zero", lines("target: {builtin: {}}", "load:", "  stages:", "    - {to: 5/s, over: 0s}", "calls: [{tool: a}]"), []string{
		`x.yaml:4:23: load.stages[0].over: must be positive, got "0s"`,
	}},
	{"stage missing to", lines("target: {builtin: {}}", "load:", "  stages:", "    - over: 1s", "calls: [{tool: a}]"), []string{
		`x.yaml:4:7: load.stages[0]: missing required key "to"`,
	}},
	{"max_in_flight below 1", lines("target: {builtin: {}}", "load: {rate: 1/s, duration: 1s, max_in_flight: 0}", "calls: [{tool: a}]"), []string{
		`x.yaml:2:48: load.max_in_flight: must be at least 1, got 0`,
	}},
	{"processes below 1", lines("target: {stdio: {command: [srv], processes: 0}}", "load: {rate: 1/s, duration: 1s}", "calls: [{tool: a}]"), []string{
		`x.yaml:1:45: target.stdio.processes: must be at least 1, got 0`,
	}},
	{"empty command", lines("target: {stdio: {command: []}}", "load: {rate: 1/s, duration: 1s}", "calls: [{tool: a}]"), []string{
		`x.yaml:1:27: target.stdio.command: want at least the program to run`,
	}},
	{"max below idle", withHead("timeouts: {idle: 10s, max: 5s}"), []string{`x.yaml:4:28: timeouts.max: 5s is shorter than timeouts.idle (10s)`}},
	{"idle above default max", withHead("timeouts: {idle: 2m}"), []string{`x.yaml:4:18: timeouts.idle: 2m is longer than timeouts.max (default 1m); set max too`}},
	{"policy with timeout and idle", withHead("timeouts:", "  policies:", "    - {name: p, timeout: 1s, idle: 1s}"), []string{
		`x.yaml:6:30: timeouts.policies[0]: want exactly one of timeout or idle, got both timeout and idle`,
	}},
	{"policy reset with timeout", withHead("timeouts:", "  policies:", "    - {name: p, timeout: 1s, reset_on_progress: true}"), []string{
		`x.yaml:6:30: timeouts.policies[0].reset_on_progress: applies only with idle, not with timeout`,
	}},
	{"policy max with timeout", withHead("timeouts:", "  policies:", "    - {name: p, timeout: 1s, max: 2s}"), []string{
		`x.yaml:6:30: timeouts.policies[0].max: applies only with idle, not with timeout`,
	}},
	{"duplicate policy", withHead("timeouts:", "  policies:", "    - {name: p, timeout: 1s}", "    - {name: p, idle: 1s}"), []string{
		`x.yaml:7:14: timeouts.policies[1].name: duplicate policy name "p"`,
	}},
	{"probe with two kinds", withHead("orphans:", "  probes:", "    - {process: {pid: 1}, tool: {name: t}}"), []string{
		`x.yaml:6:27: orphans.probes[0]: want exactly one of metric, process, tool or log, got both process and tool`,
	}},
	{"probe name not a key segment", withHead("orphans:", "  probes:", "    - {name: My-Probe, process: {}}"), []string{
		`x.yaml:6:14: orphans.probes[0].name: invalid probe name "My-Probe": checks address it as cancellation.by_probe.NAME, so only lower-case letters, digits, _ and - (did you mean "my-probe"?)`,
	}},
	{"policy name not a key segment", withHead("timeouts:", "  policies:", "    - {name: Fixed 60s, timeout: 1s}"), []string{
		`x.yaml:6:14: timeouts.policies[0].name: invalid policy name "Fixed 60s": checks address it as timeouts.policies.NAME, so only lower-case letters, digits, _ and - (did you mean "fixed_60s"?)`,
	}},
	{"probe name not a string", withHead("orphans:", "  probes:", "    - {name: [a], process: {}}"), []string{
		`x.yaml:6:14: orphans.probes[0].name: want a string, got a sequence`,
	}},
	{"duplicate probe name", withHead("orphans:", "  probes:", "    - {name: work, process: {}}", "    - {name: work, tool: {name: t}}"), []string{
		`x.yaml:7:14: orphans.probes[1].name: duplicate probe name "work" (the probe at line 6, column 14 has it too)`,
	}},
	{"duplicate default probe name", withHead("orphans:", "  probes:",
		"    - {metric: {url: 'http://h/m', name: busy, labels: {a: x}}}", "    - {metric: {url: 'http://h/m', name: busy, labels: {a: y}}}"), []string{
		`x.yaml:7:7: orphans.probes[1]: duplicate probe name "metric_busy" (the probe at line 6, column 7 has it too; give one of them a name key)`,
	}},
	{"fail_on_violation not a bool", withHead("fail_on_violation: no way"), []string{
		`x.yaml:4:20: fail_on_violation: want true or false, got "no way" (a string)`,
	}},
	{"negative retry max", withHead("throttling: {retry: {max: -1}}"), []string{`x.yaml:4:27: throttling.retry.max: must be at least 0, got -1`}},
	{"rpc code not an integer", withHead("throttling: {rpc_codes: [-32029, x]}"), []string{`x.yaml:4:34: throttling.rpc_codes[1]: want an integer, got "x" (a string)`}},
	{"gateway without truth", withHead("gateway: {}"), []string{`x.yaml:4:1: gateway: missing required key "truth"`}},
	{"gateway truth with a path", withHead("gateway: {truth: 'http://127.0.0.1:8080/mcp'}"), []string{
		`x.yaml:4:18: gateway.truth: invalid truth URL "http://127.0.0.1:8080/mcp": want the target's base URL, such as http://127.0.0.1:8080 (its records are read from /calls)`,
	}},
	{"gateway truth list item", withHead("gateway:", "  truth: ['http://127.0.0.1:1', 'ftp://h', 7]"), []string{
		`x.yaml:5:33: gateway.truth[1]: invalid URL "ftp://h": scheme must be http or https`,
		`x.yaml:5:44: gateway.truth[2]: want a string, got "7" (an integer)`,
	}},
	{"gateway truth empty list", withHead("gateway: {truth: []}"), []string{`x.yaml:4:18: gateway.truth: want at least one URL`}},
	{"gateway unknown key", withHead("gateway: {truth: 'http://h:1', thruth: x}"), []string{`x.yaml:4:32: gateway: unknown key "thruth" (known: truth)`}},

	// Environment references.
	{"unset variable", lines("target: {http: {url: 'http://h/', headers: {Authorization: 'Bearer ${NOPE}'}}}", "load: {rate: 1/s, duration: 1s}", "calls: [{tool: a}]"), []string{
		`x.yaml:1:60: target.http.headers.Authorization: environment variable NOPE is not set (write ${NOPE:-default} for a default)`,
	}},
	{"unset variable in command", lines("target:", "  stdio:", "    command: [node, '${APP}']", "load: {rate: 1/s, duration: 1s}", "calls: [{tool: a}]"), []string{
		`x.yaml:3:21: target.stdio.command[1]: environment variable APP is not set (write ${APP:-default} for a default)`,
	}},
	{"bad reference", lines("target: {stdio: {command: [srv], env: {A: '${1X}'}}}", "load: {rate: 1/s, duration: 1s}", "calls: [{tool: a}]"), []string{
		`x.yaml:1:43: target.stdio.env.A: invalid reference "${1X}": "1X" is not a variable name`,
	}},
	{"unterminated reference", lines("target: {http: {url: 'http://${HOST'}}", "load: {rate: 1/s, duration: 1s}", "calls: [{tool: a}]"), []string{
		`x.yaml:1:22: target.http.url: unterminated reference "${HOST" (want ${NAME} or ${NAME:-default})`,
	}},

	// Several errors in one file: all reported, in file order.
	{"several errors", lines(
		"name: x",
		"target: {builtin: {transport: grpc}}",
		"load: {rate: 5/s, duration: soon}",
		"calls: [{tool: a, wieght: 2}]",
	), []string{
		`x.yaml:2:31: target.builtin.transport: invalid value "grpc" (want one of: http, stdio)`,
		`x.yaml:3:29: load.duration: invalid duration "soon": want a Go duration such as 250ms, 2s or 1m30s`,
		`x.yaml:4:19: calls[0]: unknown key "wieght" (known: tool, weight, arguments, progress, task)`,
	}},
}

// TestParseErrors parses each of parseErrorCases and compares every error
// it reports, in order.
func TestParseErrors(t *testing.T) {
	for _, tt := range parseErrorCases {
		t.Run(tt.name, func(t *testing.T) {
			got := parseErrors(t, tt.yaml)
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("errors:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// parseErrors parses src as x.yaml, which must fail, and returns each of
// its errors as text.
func parseErrors(t *testing.T, src string) []string {
	t.Helper()
	s, err := parse("x.yaml", []byte(src), testEnv)
	if err == nil {
		t.Fatalf("no error; got %+v", s)
	}
	if s != nil {
		t.Errorf("got a scenario with an error")
	}
	var list Errors
	if !errors.As(err, &list) {
		t.Fatalf("error %T is not Errors: %v", err, err)
	}
	var got []string
	for _, e := range list {
		got = append(got, e.Error())
	}
	return got
}
