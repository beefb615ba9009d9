package scenarios

// The field tables: one per mapping of a scenario file. The decoder takes
// its key lists from them, and JSONSchema the whole schema (see schema.go).
// A key added to a mapping is added here, with its type, and read in the
// mapping's decode function.

// topFields are the top-level keys; kinds gives the faults list its
// branches (nil when only the key names matter).
func topFields(kinds []FaultKind) fields {
	return fields{
		{Name: "name", Type: StringType(), Doc: "the scenario's name; default: the file's base name"},
		{Name: "seed", Type: IntType(), Doc: "every random choice derives from it; default 1"},
		{Name: "protocol", Type: EnumType(protocols...), Doc: "auto (default) detects the era; a revision forces it; 2024-11-05 is the HTTP+SSE transport (http targets)"},
		{Name: "target", Type: oneKeyOf(targetFields(), targetKinds...), Required: true, Doc: "the server under test: exactly one of builtin, stdio, http"},
		{Name: "load", Type: objectOf(loadFields()), Required: true, Doc: "how much load to offer: rate, stages or concurrency"},
		{Name: "timeouts", Type: objectOf(timeoutFields()).orNull(), Doc: "the client's own timeouts for every call"},
		{Name: "calls", Type: ListOf(objectOf(callFields())).nonEmpty(), Required: true, Doc: "the tools/call mix, picked by weight"},
		{Name: "faults", Type: ListOf(faultType(kinds)), Doc: "faults injected into calls, or in the background"},
		{Name: "orphans", Type: objectOf(orphanFields()).orNull(), Doc: "how orphaned work is looked for"},
		{Name: "progress", Type: objectOf(progressFields()).orNull(), Doc: "thresholds of the progress checks"},
		{Name: "throttling", Type: objectOf(throttlingFields()).orNull(), Doc: "what counts as throttled besides HTTP 429 and 503"},
		{Name: "identities", Type: ListOf(objectOf(identityFields())), Doc: "clients to speak as, each a set of HTTP headers (API keys): mcpchaos limits asks whether each has a limit of its own"},
		{Name: "client", Type: objectOf(clientFields()).orNull(), Doc: "the client's answers to servers that ask for input (elicitation, sampling, roots) and its bound on rounds"},
		{Name: "gateway", Type: objectOf(gatewayFields()).orNull(), Doc: "the target is a gateway: the built-in targets behind it tell what really happened upstream"},
		{Name: "checks", Type: ListOf(StringType()), Doc: "pass/fail conditions over the summary keys, e.g. p99(call) < 2s"},
		{Name: "fail_on_violation", Type: BoolType(), Doc: "a violation verdict fails the run; default true"},
	}
}

func gatewayFields() fields {
	return fields{
		{Name: "truth", Type: Type{map[string]any{"oneOf": []any{StringType().s, ListOf(StringType()).nonEmpty().s}}}, Required: true,
			Doc: "the base URL (http://HOST:PORT) of each built-in target behind the gateway, one or a list; its records are read from /calls"},
	}
}

func targetFields() fields {
	return fields{
		{Name: "builtin", Type: objectOf(builtinFields()).orNull(), Doc: "the built-in target, started by mcpchaos"},
		{Name: "stdio", Type: objectOf(stdioFields()), Doc: "a server started as a subprocess, spoken to over stdin and stdout"},
		{Name: "http", Type: objectOf(httpFields()), Doc: "a server reachable over HTTP or HTTPS"},
	}
}

func stdioFields() fields {
	return fields{
		{Name: "command", Type: ListOf(StringType()).nonEmpty(), Required: true, Doc: "the program and its arguments"},
		{Name: "env", Type: StringMapType(), Doc: "added to the environment"},
		{Name: "dir", Type: StringType(), Doc: "working directory"},
		{Name: "processes", Type: Type{map[string]any{"type": "integer", "minimum": 1, "maximum": maxProcesses}}, Doc: "how many server processes to start; default 1"},
	}
}

func httpFields() fields {
	return fields{
		{Name: "url", Type: StringType(), Required: true, Doc: "the MCP endpoint, http:// or https://"},
		{Name: "headers", Type: StringMapType(), Doc: "sent with every request"},
		{Name: "pid", Type: IntBetweenType(0, MaxCount), Doc: "the server's pid, for process probes"},
		{Name: "transport", Type: EnumType(httpTransports...), Doc: "auto (default): Streamable HTTP, or the 2024-11-05 HTTP+SSE transport when the URL answers that way"},
		{Name: "tls", Type: objectOf(tlsFields()), Doc: "TLS settings for https:// URLs"},
		{Name: "http2", Type: EnumType(http2Modes...), Doc: "auto (default): HTTP/2 when an https:// server picks it on ALPN, each call on its own stream; off: HTTP/1.1 only, each call on its own connection"},
	}
}

func tlsFields() fields {
	return fields{
		{Name: "ca_file", Type: StringType(), Doc: "PEM file of the CA certificates to trust instead of the system roots"},
		{Name: "cert_file", Type: StringType(), Doc: "PEM client certificate (with key_file)"},
		{Name: "key_file", Type: StringType(), Doc: "PEM private key of cert_file"},
		{Name: "server_name", Type: StringType(), Doc: "the name the server's certificate must hold; default: the URL's host"},
		{Name: "insecure_skip_verify", Type: BoolType(), Doc: "do not verify the server's certificate (tests only)"},
	}
}

func loadFields() fields {
	return fields{
		{Name: "rate", Type: RateType(), Doc: "a constant open-model rate, N/PERIOD"},
		{Name: "stages", Type: ListOf(objectOf(stageFields())).nonEmpty(), Doc: "open-model ramps, one after the other"},
		{Name: "concurrency", Type: IntBetweenType(1, MaxConcurrency), Doc: "the closed model: this many calls always in flight"},
		{Name: "duration", Type: DurationType(), Doc: "how long the load lasts"},
		{Name: "max_in_flight", Type: IntBetweenType(1, MaxInFlight), Doc: "calls that could not start are dropped"},
		{Name: "graceful_stop", Type: DurationType(), Doc: "how long calls in flight may finish after the load"},
		{Name: "ids", Type: objectOf(idsFields()).orNull(), Doc: "how request ids are numbered: sequential (default), colliding across connections, or shuffled"},
	}
}

func timeoutFields() fields {
	return fields{
		{Name: "idle", Type: DurationType(), Doc: "reset by each progress notification"},
		{Name: "max", Type: DurationType(), Doc: "never reset"},
		{Name: "policies", Type: ListOf(objectOf(policyFields())), Doc: "client timeout policies replayed over the calls"},
		{Name: "connect", Type: DurationType(), Doc: "bounds each connection's set-up (era probe, 2025 initialize); default 5s"},
	}
}

func callFields() fields {
	return fields{
		{Name: "tool", Type: StringType().nonEmpty(), Required: true, Doc: "the tool's name"},
		{Name: "weight", Type: NumberType(0, true), Doc: "relative weight in the mix; default 1"},
		{Name: "arguments", Type: AnyObjectType(), Doc: "the tool's arguments"},
		{Name: "progress", Type: BoolType(), Doc: "send a progress token; default true"},
		{Name: "task", Type: BoolType(), Doc: "declare the tasks extension for this call: a task the server returns is polled to its end; default false"},
	}
}

// The keys of faults that act on calls, and of those that act at a time.
var (
	perCallFields = fields{
		{Name: "probability", Type: ProbType(), Doc: "the share of calls the fault acts on; default 1"},
		{Name: "tools", Type: ListOf(StringType().nonEmpty()), Doc: "only calls of tools matching one of these patterns"},
	}
	timedFields = fields{
		{Name: "after", Type: DistType(), Doc: "when, from the send: a duration, uniform(LOW, HIGH) or exp(MEAN)"},
		{Name: "after_progress", Type: IntBetweenType(1, MaxCount), Doc: "or right after this many progress notifications; if they have not come by after (when written too) or after half of timeouts.idle without progress, at that time instead"},
	}
)

func orphanFields() fields {
	return fields{
		{Name: "grace", Type: DurationType(), Doc: "wait this long after the load before judging; a message from the server later than this after a cut (or than progress.grace, when longer), and a tenth more, is leftover work (on stdio, from a server seen to write in order, read after the answer to a ping sent then: no tenth more)"},
		{Name: "drain_max", Type: DurationType(), Doc: "wait at most this long for the probes to return to baseline"},
		{Name: "sample_every", Type: DurationType(), Doc: "probe sampling period during the run"},
		{Name: "probes", Type: ListOf(oneKeyOf(probeFields(), probeKinds...)), Doc: "ways to see server-side work"},
		{Name: "windows", Type: objectOf(windowFields()), Doc: "quiet windows during the load"},
	}
}

func probeFields() fields {
	return fields{
		{Name: "name", Type: StringType(), Doc: "how checks address the probe"},
		{Name: "metric", Type: objectOf(metricFields()), Doc: "a Prometheus gauge"},
		{Name: "process", Type: objectOf(processFields()).orNull(), Doc: "a process tree's CPU time and children"},
		{Name: "tool", Type: objectOf(toolProbeFields()), Doc: "a tool whose result holds a number"},
		{Name: "log", Type: objectOf(logProbeFields()), Doc: "a log line per finished call"},
	}
}

func progressFields() fields {
	return fields{
		{Name: "grace", Type: DurationType(), Doc: "progress this long after a cancel is still in time (the progress rule; leftover work needs the longer of this and orphans.grace)"},
		{Name: "flood_hz", Type: NumberType(0, true), Doc: "more notifications per second for one token is a flood"},
		{Name: "stall", Type: DurationType(), Doc: "no progress for this long while a call runs is a stall"},
	}
}

func throttlingFields() fields {
	return fields{
		{Name: "rpc_codes", Type: ListOf(IntType()), Doc: "JSON-RPC error codes that mean throttled"},
		{Name: "message", Type: StringType(), Doc: "regexp over JSON-RPC error messages"},
		{Name: "tool_message", Type: StringType(), Doc: "regexp over the text of tool results with isError"},
		{Name: "retry", Type: objectOf(retryFields()).orNull(), Doc: "retry throttled calls"},
	}
}

func stageFields() fields {
	return fields{
		{Name: "to", Type: RateType(), Required: true, Doc: "the rate at the end of the stage"},
		{Name: "over", Type: DurationType(), Required: true, Doc: "how long the ramp takes"},
	}
}

func policyFields() fields {
	return fields{
		{Name: "name", Type: StringType().nonEmpty(), Required: true},
		{Name: "timeout", Type: DurationType(), Doc: "a fixed total timeout"},
		{Name: "idle", Type: DurationType(), Doc: "an idle timeout"},
		{Name: "reset_on_progress", Type: BoolType(), Doc: "progress resets the idle timeout"},
		{Name: "max", Type: DurationType(), Doc: "a cap that progress never resets"},
	}
}

func windowFields() fields {
	return fields{
		{Name: "every", Type: DurationType(), Required: true},
		{Name: "for", Type: DurationType(), Required: true},
	}
}

func metricFields() fields {
	return fields{
		{Name: "url", Type: StringType(), Required: true},
		{Name: "name", Type: StringType(), Required: true, Doc: "the gauge's name"},
		{Name: "labels", Type: StringMapType(), Doc: "only series with these label values"},
	}
}

func processFields() fields {
	return fields{{Name: "pid", Type: IntBetweenType(0, MaxCount), Doc: "0: the stdio target's own processes"}}
}

func toolProbeFields() fields {
	return fields{
		{Name: "name", Type: StringType().nonEmpty(), Required: true},
		{Name: "arguments", Type: AnyObjectType()},
		{Name: "pointer", Type: StringType(), Doc: "JSON pointer to the number in the structured result"},
	}
}

func logProbeFields() fields {
	return fields{
		{Name: "file", Type: StringType().nonEmpty(), Doc: "a log file to tail"},
		{Name: "stderr", Type: BoolType(), Doc: "the stderr of the stdio servers"},
		{Name: "done", Type: StringType(), Required: true, Doc: "regexp with a group (?P<id>...) or (?P<token>...)"},
	}
}

func retryFields() fields {
	return fields{
		{Name: "honor_retry_after", Type: BoolType()},
		{Name: "max", Type: IntBetweenType(0, MaxRetries), Doc: "retries per call"},
	}
}
