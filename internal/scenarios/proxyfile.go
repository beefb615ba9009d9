package scenarios

import (
	"fmt"
	"net"
	"os"

	"github.com/goccy/go-yaml/ast"

	"github.com/mcpchaos/mcpchaos/internal/redact"
)

// ProxyFile is a proxy file, what `mcpchaos proxy` reads: where it
// listens, the upstream server it forwards to, how long it holds an
// endless call and the faults it injects toward clients. It goes through
// the scenario decoder (strict keys, FILE:LINE:COLUMN errors, environment
// references); package proxy owns the fault kinds and decodes their own
// keys from each Fault's Params.
type ProxyFile struct {
	File     string
	Name     string
	Seed     int64
	Listen   string       // a loopback host:port; Streamable HTTP at /mcp, HTTP+SSE at /sse
	Upstream *HTTPTarget  // only URL, Headers and Transport are read; nil with Stdio
	Stdio    *StdioTarget // a server the proxy starts: Command, Env, Dir
	Hold     Duration     // how long an endless call is held; default DefaultHold
	// IdentityHeader (clients.identity_header) names the request header
	// that tells sessionless clients apart; "" for none.
	IdentityHeader string
	Faults         []Fault
	// Secrets are the values no output may show, collected as a
	// scenario's are (secrets.go): the upstream URL's credentials, header
	// and env values, what ${VAR} references expanded to. nil when none.
	Secrets *redact.Set
}

// DefaultHold is how long the proxy holds an endless call before it gives
// up on the client cancelling it.
const DefaultHold = Duration(5 * 60 * 1e9)

// proxyFields are the top-level keys of a proxy file.
func proxyFields() fields {
	return fields{
		{Name: "name", Type: StringType(), Doc: "the proxy's name; default: the file's base name"},
		{Name: "seed", Type: IntType(), Doc: "every random choice derives from it; default 1"},
		{Name: "listen", Type: StringType(), Required: true, Doc: "a loopback HOST:PORT; Streamable HTTP is served at /mcp, HTTP+SSE at /sse"},
		{Name: "upstream", Type: oneKeyOf(proxyUpstreamFields(), "http", "stdio"), Required: true, Doc: "the server calls are forwarded to: http: {url} or stdio: {command}"},
		{Name: "hold", Type: DurationType(), Doc: "how long an endless call is held before the proxy gives up; default 5m"},
		{Name: "clients", Type: objectOf(proxyClientFields()), Doc: "how the proxy tells clients apart"},
		{Name: "faults", Type: ListOf(AnyObjectType()), Doc: "faults injected toward the client, per call"},
	}
}

func proxyClientFields() fields {
	return fields{
		{Name: "identity_header", Type: StringType(), Doc: "a request header whose value names the client when a request has no Mcp-Session-Id; without it, the remote IP and User-Agent do"},
	}
}

func proxyUpstreamFields() fields {
	return fields{
		{Name: "http", Type: objectOf(fields{
			{Name: "url", Type: StringType(), Required: true, Doc: "the upstream MCP endpoint, http:// or https://"},
			{Name: "headers", Type: StringMapType(), Doc: "added to every forwarded request"},
			{Name: "transport", Type: EnumType(httpTransports...), Doc: "auto (default): Streamable HTTP, or HTTP+SSE when the server answers that way; streamable; sse: the 2024-11-05 HTTP+SSE transport"},
		}), Doc: "a server reachable over Streamable HTTP, or HTTP+SSE"},
		{Name: "stdio", Type: objectOf(fields{
			{Name: "command", Type: ListOf(StringType()).nonEmpty(), Required: true, Doc: "the program and its arguments"},
			{Name: "env", Type: StringMapType(), Doc: "added to the environment"},
			{Name: "dir", Type: StringType(), Doc: "working directory"},
		}), Doc: "a server the proxy starts and speaks to over stdin and stdout"},
	}
}

// LoadProxy reads and decodes the proxy file at path, at most
// MaxFileSize+1 bytes of it. A problem in the file is reported as Errors
// naming path:line:column.
func LoadProxy(path string) (*ProxyFile, error) {
	data, err := readLimited(path)
	if err != nil {
		return nil, fmt.Errorf("read proxy file: %w", err)
	}
	return ParseProxy(path, data)
}

// ParseProxy is LoadProxy for a file already in memory.
func ParseProxy(filename string, data []byte) (*ProxyFile, error) {
	d := newDecoder(filename, os.LookupEnv)
	body, ok := d.document(data)
	if !ok {
		return nil, d.errs
	}
	p := d.proxyFile(body)
	if d.collectSecrets(&Scenario{Target: Target{HTTP: p.Upstream, Stdio: p.Stdio}}); !d.secrets.Empty() {
		p.Secrets = d.secrets
	}
	if len(d.errs) > 0 {
		return nil, d.errs.sorted().redacted(d.secrets)
	}
	return p, nil
}

func (d *decoder) proxyFile(root ast.Node) *ProxyFile {
	p := &ProxyFile{File: d.file, Seed: DefaultSeed, Hold: DefaultHold}
	o := d.object("", posOf(root), root)
	if o.bad {
		return p
	}
	o.known(proxyFields().names()...)
	o.require(proxyFields().required()...)
	p.Name = o.stringOr("name", defaultName(d.file))
	if v, ok := o.integer("seed"); ok {
		p.Seed = v
	}
	if s, ok := o.str("listen"); ok {
		if err := checkLoopback(s); err != nil {
			o.errf("listen", "%v", err)
		}
		p.Listen = s
	}
	if o.has("upstream") {
		u := o.sub("upstream")
		u.known("http", "stdio")
		switch u.exactlyOneValue("http", "stdio") {
		case "http":
			h := u.sub("http")
			h.known("url", "headers", "transport")
			if !h.bad {
				p.Upstream = d.http(h)
			}
		case "stdio":
			s := u.sub("stdio")
			s.known("command", "env", "dir")
			if !s.bad {
				p.Stdio = d.stdio(s)
			}
		}
	}
	p.Hold = o.positive("hold", DefaultHold)
	if o.has("clients") {
		c := o.sub("clients")
		c.known(proxyClientFields().names()...)
		if h, ok := c.str("identity_header"); ok {
			if !validHeaderName(h) {
				c.errf("identity_header", "invalid header name %q: want an HTTP header name such as X-Client-Id", h)
			}
			p.IdentityHeader = h
		}
	}
	for _, it := range o.items("faults") {
		if f, _, ok := d.fault(it); ok {
			p.Faults = append(p.Faults, f)
		}
	}
	return p
}

// checkLoopback accepts HOST:PORT where HOST is a loopback IP or
// localhost: the proxy serves no one but this machine.
func checkLoopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("listen address %q: %v", addr, err)
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("listen address %q: want a loopback host (127.0.0.1, ::1 or localhost)", addr)
	}
	return nil
}
