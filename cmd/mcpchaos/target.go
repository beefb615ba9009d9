package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/mcpchaos/mcpchaos/client"
	"github.com/mcpchaos/mcpchaos/internal/redact"
	"github.com/mcpchaos/mcpchaos/internal/scenarios"
)

// A server named on the command line, for the commands that look at one
// before any scenario exists (tools, init): a Streamable HTTP URL, or
// `-- COMMAND ARGS...` for a stdio server that mcpchaos starts. They
// connect as run does: client.Dial settles the era (server/discover, then
// initialize) and explains a failure.

// targetFlags are the connection flags those commands share.
type targetFlags struct {
	headers  []string
	protocol string
	timeout  time.Duration
}

func addTargetFlags(fs *pflag.FlagSet) *targetFlags {
	f := &targetFlags{}
	fs.StringArrayVarP(&f.headers, "header", "H", nil, "send the HTTP header `'NAME: VALUE'` with every request (repeatable)")
	fs.StringVar(&f.protocol, "protocol", "auto", "the protocol `REVISION`: auto (detect), 2026-07-28, 2025-11-25, 2025-06-18, or 2024-11-05 (the HTTP+SSE transport)")
	fs.DurationVar(&f.timeout, "timeout", 30*time.Second, "give up on connecting and listing after `DURATION`")
	return f
}

// target is a parsed TARGET.
type target struct {
	url     string
	header  map[string]string
	command []string
	era     client.Era
	timeout time.Duration
}

// targetUsage is the TARGET part of the usage lines.
const targetUsage = "TARGET is a Streamable HTTP URL (http://127.0.0.1:8080/mcp), or -- COMMAND ARGS...\nfor a stdio server that mcpchaos starts (mcpchaos tools -- node server.js)."

// parseTarget reads TARGET from the arguments left after the flags.
func parseTarget(fs *pflag.FlagSet, f *targetFlags) (target, error) {
	t := target{timeout: f.timeout}
	era, err := client.ParseProtocol(f.protocol)
	if err != nil {
		return t, fmt.Errorf("--protocol: %w", err)
	}
	t.era = era
	if t.timeout <= 0 {
		return t, fmt.Errorf("--timeout: %s is not above 0", t.timeout)
	}
	args := fs.Args()
	if dash := fs.ArgsLenAtDash(); dash >= 0 {
		if dash > 0 {
			return t, fmt.Errorf("want a URL or -- COMMAND, not both (got %q before --)", args[0])
		}
		if len(args) == 0 || args[0] == "" {
			return t, errors.New("no command after --")
		}
		if len(f.headers) > 0 {
			return t, errors.New("--header applies to HTTP targets only")
		}
		t.command = args
		return t, nil
	}
	switch len(args) {
	case 0:
		//lint:ignore ST1005 "ARGS..." is the usage line's own notation
		return t, errors.New("no TARGET: give a URL or -- COMMAND ARGS...")
	case 1:
	default:
		return t, fmt.Errorf("want one TARGET, got %d arguments (a stdio command goes after --: -- %s)", len(args), strings.Join(args, " "))
	}
	if err := scenarios.CheckHTTPURL(args[0]); err != nil {
		return t, fmt.Errorf("%w (a stdio server goes after --: -- COMMAND ARGS...)", err)
	}
	t.url = args[0]
	for _, h := range f.headers {
		name, value, ok := strings.Cut(h, ":")
		name, value = strings.TrimSpace(name), strings.TrimSpace(value)
		switch {
		case !ok:
			return t, fmt.Errorf("--header %q: want NAME: VALUE", h)
		case !scenarios.ValidHeaderName(name):
			return t, fmt.Errorf("--header %q: invalid header name %q", h, name)
		case strings.ContainsAny(value, "\r\n\x00"):
			return t, fmt.Errorf("--header %q: the value contains a line break or NUL", name)
		}
		if t.header == nil {
			t.header = map[string]string{}
		}
		t.header[name] = value
	}
	return t, nil
}

// String names the target as the user gave it, the URL's credentials
// masked (redact.URL).
func (t target) String() string {
	if t.url != "" {
		return redact.URL(t.url)
	}
	return strings.Join(t.command, " ")
}

// addSecrets adds the target's secrets to the command's outputs (as run
// adds a scenario's, docs/secrets.md): the URL's password and
// secret-looking query parameters, the header values, and the URLs in a
// stdio command's words. With allHeaders every header value is a secret
// (tools); without, only those of headers whose names look secret (init,
// whose scenario holds the other values as written: on stdout too).
// Called before anything about the target is printed.
func (t target) addSecrets(ctx context.Context, allHeaders bool) {
	set := redact.FromContext(ctx)
	if t.url != "" {
		headers := t.header
		if !allHeaders {
			headers = map[string]string{}
			for k, v := range t.header {
				if secretHeader(k) {
					headers[k] = v
				}
			}
		}
		scenarios.AddHTTPSecrets(set, t.url, headers)
	}
	set.AddURL(t.command...)
}

// dial connects to the target, settling the era.
func (t target) dial(ctx context.Context) (*client.Client, error) {
	// The era probe and the handshake each get half the time at most.
	cfg := client.Config{Protocol: t.era, ClientInfo: client.Implementation{Name: "mcpchaos", Version: version},
		ProbeTimeout: min(5*time.Second, t.timeout/2)}
	if t.url != "" {
		cfg.HTTP = &client.HTTPConfig{URL: t.url, Header: t.header}
	} else {
		cfg.Stdio = &client.StdioConfig{Command: t.command}
	}
	c, err := client.Dial(ctx, cfg)
	switch {
	case err != nil && t.url != "" && strings.Contains(err.Error(), t.url):
		return nil, fmt.Errorf("connect: %w", err) // the error names the URL already
	case err != nil:
		return nil, fmt.Errorf("connect to %s: %w", t.what(), err)
	}
	return c, nil
}

// what says what was tried, for messages.
func (t target) what() string {
	if t.url != "" {
		return redact.URL(t.url)
	}
	return fmt.Sprintf("stdio server %q", strings.Join(t.command, " "))
}

// listTools connects to the target and lists its tools, within the
// target's timeout. The client is closed before it returns; its Server,
// Era and Transport still say what was found.
func (t target) listTools(ctx context.Context) (*client.Client, *client.ToolList, error) {
	ctx, cancel := client.WithBound(ctx, t.timeout) // a time-out names --timeout as given
	defer cancel()
	c, err := t.dial(ctx)
	if err != nil {
		return nil, nil, err
	}
	defer func() {
		cctx, ccancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer ccancel()
		_ = c.Close(cctx)
	}()
	l, err := c.ListToolPages(ctx)
	if errors.Is(err, client.ErrListCut) {
		return c, nil, fmt.Errorf("list the tools of %s within --timeout %s: %w", t.what(), t.timeout, err)
	}
	if err != nil {
		return c, nil, fmt.Errorf("list the tools of %s: %w", t.what(), err)
	}
	return c, l, nil
}
