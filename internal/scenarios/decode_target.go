package scenarios

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/mcpchaos/mcpchaos/internal/redact"
	"github.com/mcpchaos/mcpchaos/internal/targetserver/knobs"
)

var (
	targetKinds = []string{"builtin", "stdio", "http"}
	stdioKeys   = stdioFields().names()
	httpKeys    = httpFields().names()
	transports  = []string{TransportHTTP, TransportStdio}
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

// builtin decodes target.builtin: the transport, and one key per knob of
// knobs.Table, each checked by the table at its own position.
func (d *decoder) builtin(o *object) *BuiltinTarget {
	o.known(builtinFields().names()...)
	b := &BuiltinTarget{Transport: o.enum("transport", TransportHTTP, transports...)}
	for _, k := range knobs.Table {
		if k.NotInFile {
			continue
		}
		text, ok := knobText(o, k)
		if !ok {
			continue
		}
		if err := k.Set(&b.Config, text); err != nil {
			var fe *knobs.FieldError
			if errors.As(err, &fe) {
				o.errf(k.Name, "invalid value %q (want %s)", o.raw(k.Name), fe.Want)
			} else {
				o.errf(k.Name, "%v", err)
			}
		}
	}
	b.Era = b.EraOrDefault()
	d.eraPos = o.at("era")
	return b
}

// knobText returns a knob's value as knobs.Knob.Set reads it, after
// checking its YAML type: a bool knob takes true or false, a number knob
// a number, an integer knob an integer; the others (durations, rates,
// enums) take any scalar.
func knobText(o *object, k knobs.Knob) (string, bool) {
	switch k.Kind {
	case knobs.Bool:
		v, ok := o.boolean(k.Name)
		return strconv.FormatBool(v), ok
	case knobs.Prob, knobs.Float:
		v, ok := o.number(k.Name)
		return strconv.FormatFloat(v, 'g', -1, 64), ok
	case knobs.Int, knobs.Seed:
		v, ok := o.integer(k.Name)
		return strconv.FormatInt(v, 10), ok
	}
	return o.text(k.Name)
}

func (d *decoder) stdio(o *object) *StdioTarget {
	o.known(stdioKeys...)
	o.require("command")
	s := &StdioTarget{Processes: int(o.intBetween("processes", DefaultProcesses, 1, maxProcesses))}
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
	h := &HTTPTarget{PID: int(o.intBetween("pid", 0, 0, MaxCount)), Transport: o.enum("transport", HTTPAuto, httpTransports...),
		HTTP2: o.enum("http2", HTTP2Auto, http2Modes...)}
	d.transportPos = o.at("transport")
	if o.present("tls") {
		h.TLS = d.tls(o.sub("tls"))
	}
	if u, ok := o.str("url"); ok {
		v := positioned{s: u, pos: o.at("url"), path: join(o.path, "url")}
		if d.expand(&v) {
			if err := checkHTTPURL(v.s); err != nil {
				d.errorf(v.pos, v.path, "%v", err)
			}
			h.URL = v.s
		}
	}
	if h.TLS != nil && strings.HasPrefix(h.URL, "http://") {
		d.errorf(o.keyAt("tls"), join(o.path, "tls"), "applies only to https:// URLs, and url is %q", h.URL)
	}
	if headers, ok := o.stringMap("headers"); ok || headers != nil {
		h.Headers = make(map[string]string, len(headers))
		for k, v := range headers {
			if !validHeaderName(k) {
				d.errorf(v.pos, v.path, "invalid header name %q", k)
				continue
			}
			if d.expand(&v) {
				d.secrets.Add(redact.HeaderSecrets(v.s)...)
				if strings.ContainsAny(v.s, "\r\n\x00") {
					d.errorf(v.pos, v.path, "the value contains a line break or NUL (not shown: header values are secret)")
					continue
				}
				h.Headers[k] = v.s
			}
		}
	}
	return h
}

// checkHTTPURL accepts absolute http and https URLs with a host and, if
// given, a port from 1 to 65535.
func checkHTTPURL(s string) error {
	u, err := url.Parse(s)
	if err != nil {
		return fmt.Errorf("invalid URL %q: %v", s, unwrapURLError(err))
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("invalid URL %q: scheme must be http or https", s)
	}
	if u.Hostname() == "" {
		return fmt.Errorf("invalid URL %q: missing host", s)
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return fmt.Errorf("invalid URL %q: port %s is not between 1 and 65535", s, p)
		}
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
