package scenarios

import (
	"fmt"
	"net/url"
	"strings"
)

var (
	targetKinds = []string{"builtin", "stdio", "http"}
	builtinKeys = []string{"transport", "era", "leak_on_cancel", "stop_delay", "propagate_cancel", "progress_flood_hz", "stall_after", "endless", "non_monotonic", "progress_after_response", "rate_limit", "rate_limit_code", "exit_delay"}
	stdioKeys   = []string{"command", "env", "dir", "processes"}
	httpKeys    = []string{"url", "headers", "pid"}
	transports  = []string{TransportHTTP, TransportStdio}
	builtinEras = []string{EraDual, Era2026, Era2025}
)

// maxProcesses bounds target.stdio.processes.
const maxProcesses = 1024

// target decodes the target section; at is the position of the key.
func (d *decoder) target(o *object, at Pos) Target {
	t := Target{Pos: at}
	if o.bad {
		return t
	}
	o.known(targetKinds...)
	switch o.exactlyOne(targetKinds...) {
	case "builtin":
		t.Builtin = d.builtin(o.sub("builtin"))
	case "stdio":
		t.Stdio = d.stdio(o.sub("stdio"))
	case "http":
		t.HTTP = d.http(o.sub("http"))
	}
	return t
}

func (d *decoder) builtin(o *object) *BuiltinTarget {
	o.known(builtinKeys...)
	b := &BuiltinTarget{
		Transport:             o.enum("transport", TransportHTTP, transports...),
		Era:                   o.enum("era", EraDual, builtinEras...),
		LeakOnCancel:          o.prob("leak_on_cancel", 0),
		StopDelay:             o.duration("stop_delay", 0),
		PropagateCancel:       o.boolOr("propagate_cancel", true),
		ProgressFloodHz:       o.numberAtLeast("progress_flood_hz", 0, 0, false),
		StallAfter:            int(o.intAtLeast("stall_after", 0, 0)),
		Endless:               o.boolOr("endless", false),
		NonMonotonic:          o.prob("non_monotonic", 0),
		ProgressAfterResponse: o.boolOr("progress_after_response", false),
		ExitDelay:             o.duration("exit_delay", 0),
	}
	b.RateLimit, _ = parsed(o, "rate_limit", ParseRate)
	if v, ok := o.integer("rate_limit_code"); ok {
		if v < -1<<31 || v > 1<<31-1 {
			o.errf("rate_limit_code", "%d is not a 32-bit JSON-RPC error code", v)
		} else {
			b.RateLimitCode = int(v)
		}
	}
	return b
}

func (d *decoder) stdio(o *object) *StdioTarget {
	o.known(stdioKeys...)
	o.require("command")
	s := &StdioTarget{Processes: int(o.intAtLeast("processes", DefaultProcesses, 1))}
	if s.Processes > maxProcesses {
		o.errf("processes", "at most %d processes, got %d", maxProcesses, s.Processes)
		s.Processes = DefaultProcesses
	}
	if cmd, ok := o.stringList("command"); ok {
		if len(cmd) == 0 {
			o.errf("command", "want at least the program to run")
		}
		for i := range cmd {
			if d.expand(&cmd[i]) {
				s.Command = append(s.Command, cmd[i].s)
			}
		}
		if len(cmd) > 0 && len(s.Command) == len(cmd) && strings.TrimSpace(s.Command[0]) == "" {
			d.errorf(cmd[0].pos, cmd[0].path, "the program name is empty")
		}
	}
	if env, ok := o.stringMap("env"); ok || env != nil {
		s.Env = make(map[string]string, len(env))
		for k, v := range env {
			if k == "" || strings.ContainsAny(k, "=\x00") {
				d.errorf(v.pos, v.path, "invalid environment variable name %q", k)
				continue
			}
			if d.expand(&v) {
				s.Env[k] = v.s
			}
		}
	}
	s.Dir, _ = o.str("dir")
	return s
}

func (d *decoder) http(o *object) *HTTPTarget {
	o.known(httpKeys...)
	o.require("url")
	h := &HTTPTarget{PID: int(o.intAtLeast("pid", 0, 0))}
	if u, ok := o.str("url"); ok {
		v := positioned{s: u, pos: o.at("url"), path: join(o.path, "url")}
		if d.expand(&v) {
			if err := checkHTTPURL(v.s); err != nil {
				d.errorf(v.pos, v.path, "%v", err)
			}
			h.URL = v.s
		}
	}
	if headers, ok := o.stringMap("headers"); ok || headers != nil {
		h.Headers = make(map[string]string, len(headers))
		for k, v := range headers {
			if !validHeaderName(k) {
				d.errorf(v.pos, v.path, "invalid header name %q", k)
				continue
			}
			if d.expand(&v) {
				if strings.ContainsAny(v.s, "\r\n\x00") {
					d.errorf(v.pos, v.path, "header value %q contains a line break or NUL", clip(v.s))
					continue
				}
				h.Headers[k] = v.s
			}
		}
	}
	return h
}

// checkHTTPURL accepts absolute http and https URLs with a host.
func checkHTTPURL(s string) error {
	u, err := url.Parse(s)
	if err != nil {
		return fmt.Errorf("invalid URL %q: %v", s, unwrapURLError(err))
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("invalid URL %q: scheme must be http or https", s)
	}
	if u.Host == "" {
		return fmt.Errorf("invalid URL %q: missing host", s)
	}
	return nil
}

func unwrapURLError(err error) error {
	if ue, ok := err.(*url.Error); ok {
		return ue.Err
	}
	return err
}

// validHeaderName reports whether name is an HTTP token (RFC 9110).
func validHeaderName(name string) bool {
	if name == "" {
		return false
	}
	for _, r := range name {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		case strings.ContainsRune("!#$%&'*+-.^_`|~", r):
		default:
			return false
		}
	}
	return true
}
