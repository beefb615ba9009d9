package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/mcpchaos/mcpchaos/internal/targetserver"
	"github.com/mcpchaos/mcpchaos/internal/targetserver/knobs"
)

// serveCmd runs the built-in target server: Streamable HTTP (both protocol
// eras by default) with metrics beside it, or stdio.
func serveCmd(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return serve(ctx, args, os.Stdin, stdout, stderr)
}

// serveFlags are the command line of `mcpchaos serve`: three flags of its
// own, and one per knob of knobs.Table.
type serveFlags struct {
	listen        string
	stdio         bool
	metricsListen string
	// tlsCert and tlsKey serve HTTPS with that pair; tlsSelfSigned with a
	// fresh pair whose CA is written to that file.
	tlsCert, tlsKey, tlsSelfSigned string
	knobs                          map[string]*knobFlag // by flag name
}

// knobFlag holds a knob flag's text until config checks it against the
// table, so that a bad value is reported as --flag "value": want ...
type knobFlag struct {
	knob knobs.Knob
	text string
}

func (f *knobFlag) String() string { return f.text }
func (f *knobFlag) Set(s string) error {
	f.text = s
	return nil
}
func (f *knobFlag) Type() string { return f.knob.Arg }

func newServeFlags(stdout io.Writer) (*pflag.FlagSet, *serveFlags) {
	f := &serveFlags{knobs: map[string]*knobFlag{}}
	fs := newFlagSet("serve", stdout,
		"usage: mcpchaos serve [--listen ADDR [--tls-cert FILE --tls-key FILE | --tls-self-signed CA_OUT] | --stdio [--metrics-listen ADDR]] [knobs]",
		"",
		"Runs the built-in target MCP server (tools echo, slow_task, cpu_task, inflight; deploy with --confirm).",
		"Every knob is off by default: the server then behaves correctly.",
		"")
	fs.StringVar(&f.listen, "listen", "127.0.0.1:8080", "serve Streamable HTTP on /mcp and metrics on /metrics at `ADDR`")
	fs.BoolVar(&f.stdio, "stdio", false, "serve MCP on stdin/stdout instead of HTTP")
	fs.StringVar(&f.metricsListen, "metrics-listen", "", "with --stdio, serve /metrics at `ADDR` (default: no metrics endpoint)")
	fs.StringVar(&f.tlsCert, "tls-cert", "", "serve HTTPS (HTTP/2 or HTTP/1.1, as the client picks) with the PEM certificate in `FILE` (with --tls-key)")
	fs.StringVar(&f.tlsKey, "tls-key", "", "the PEM private key of --tls-cert, in `FILE`")
	fs.StringVar(&f.tlsSelfSigned, "tls-self-signed", "", "serve HTTPS with a fresh certificate for 127.0.0.1, ::1 and localhost, and write the CA that signed it to `CA_OUT` (for a scenario's target.http.tls.ca_file)")
	for _, k := range knobs.Table {
		kf := &knobFlag{knob: k, text: k.Default()}
		f.knobs[k.Flag()] = kf
		// pflag takes a back-quoted word in a usage for the value's name:
		// a knob's doc quotes code, so its quotes are plain here and the
		// name is the knob's Arg (knobFlag.Type).
		fl := fs.VarPF(kf, k.Flag(), "", strings.ReplaceAll(k.Doc, "`", `"`))
		if fl.DefValue == "0s" {
			fl.DefValue = "0" // pflag prints no default for "0"
		}
		if k.Kind == knobs.Bool {
			fl.NoOptDefVal = "true"
		}
	}
	return fs, f
}

// config checks the flags and returns the target configuration. Errors name
// the flag and quote its value.
func (f *serveFlags) config(fs *pflag.FlagSet) (targetserver.Config, error) {
	var cfg targetserver.Config
	if fs.NArg() > 0 {
		return cfg, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if f.stdio && fs.Changed("listen") {
		return cfg, errors.New("--listen and --stdio exclude each other (use --metrics-listen for metrics with --stdio)")
	}
	if !f.stdio && fs.Changed("metrics-listen") {
		return cfg, errors.New("--metrics-listen needs --stdio (over HTTP, metrics are on /metrics of --listen)")
	}
	if err := f.checkTLS(); err != nil {
		return cfg, err
	}
	for _, k := range knobs.Table {
		kf := f.knobs[k.Flag()]
		if !fs.Changed(k.Flag()) {
			continue
		}
		if err := k.Set(&cfg, kf.text); err != nil {
			var fe *knobs.FieldError
			if errors.As(err, &fe) {
				return targetserver.Config{}, fmt.Errorf("--%s %q: want %s", k.Flag(), kf.text, fe.Want)
			}
			return targetserver.Config{}, fmt.Errorf("--%s: %w", k.Flag(), err)
		}
	}
	return cfg, nil
}

// serve is serveCmd with stdin explicit, for tests.
func serve(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs, f := newServeFlags(stdout)
	if code, ok := parseFlags(fs, args, stderr); !ok {
		return code
	}
	cfg, err := f.config(fs)
	if err != nil {
		return fail(stderr, "serve", err)
	}
	if f.stdio {
		return serveStdio(ctx, cfg, f.metricsListen, stdin, stdout, stderr)
	}
	cert, err := f.certificate(stderr)
	if err != nil {
		return fail(stderr, "serve", err)
	}
	return serveHTTP(ctx, cfg, f.listen, cert, stderr)
}

func serveHTTP(ctx context.Context, cfg targetserver.Config, addr string, cert *tls.Certificate, stderr io.Writer) int {
	r, err := targetserver.StartHTTPS(ctx, cfg, addr, cert)
	if err != nil {
		return fail(stderr, "serve", err)
	}
	defer r.Close()
	fmt.Fprintf(stderr, "mcpchaos serve: MCP on %s, metrics on %s (era %s; %s)\n",
		r.URL, r.MetricsURL, cfg.EraOrDefault(), knobSummary(cfg))
	served := make(chan error, 1)
	go func() { served <- r.Wait() }()
	select {
	case <-ctx.Done():
		r.Close()
		return exitOK
	case err := <-served:
		if err != nil {
			return fail(stderr, "serve", runError(err))
		}
		return exitOK
	}
}

func serveStdio(ctx context.Context, cfg targetserver.Config, metricsAddr string, stdin io.Reader, stdout, stderr io.Writer) int {
	s, err := targetserver.New(cfg)
	if err != nil {
		return fail(stderr, "serve", err)
	}
	defer s.Close()
	where, bound := "no metrics endpoint", ""
	if metricsAddr != "" {
		var lc net.ListenConfig
		ln, err := lc.Listen(ctx, "tcp", metricsAddr)
		if err != nil {
			fmt.Fprintf(stderr, "mcpchaos serve: metrics: listen on %q: %v\n", metricsAddr, err)
			return exitUsage
		}
		hs := &http.Server{Handler: metricsMux(s), ReadHeaderTimeout: 10 * time.Second}
		go hs.Serve(ln)
		defer hs.Close()
		bound = ln.Addr().String()
		where = "metrics on http://" + bound + "/metrics"
	}
	// stdout carries the protocol: the status line goes to stderr.
	fmt.Fprintf(stderr, "mcpchaos serve: MCP on stdio, %s (%s)\n", where, knobSummary(cfg))
	if bound != "" {
		noteEveryInterface(stderr, "mcpchaos serve", metricsAddr, bound)
	}
	if err := s.ServeStdio(ctx, stdin, stdout); err != nil {
		return fail(stderr, "serve", runError(err))
	}
	return exitOK
}

func metricsMux(s *targetserver.Server) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/metrics", s.MetricsHandler())
	mux.Handle("/calls", s.CallsHandler())
	return mux
}

// knobSummary lists the knobs that differ from a correct server.
func knobSummary(cfg targetserver.Config) string {
	on := cfg.Summary()
	if on == "" {
		return "no misbehaviour knobs"
	}
	return "knobs: " + on + fmt.Sprintf(", seed %d", cfg.Seed)
}
