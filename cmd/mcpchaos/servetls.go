package main

import (
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/mcpchaos/mcpchaos/internal/targetserver"
)

// checkTLS checks that the TLS flags of serve go together: --tls-cert with
// --tls-key, neither with --tls-self-signed, none with --stdio.
func (f *serveFlags) checkTLS() error {
	switch {
	case (f.tlsCert == "") != (f.tlsKey == ""):
		return errors.New("--tls-cert and --tls-key go together")
	case f.tlsSelfSigned != "" && f.tlsCert != "":
		return errors.New("--tls-self-signed and --tls-cert exclude each other")
	case f.stdio && (f.tlsCert != "" || f.tlsSelfSigned != ""):
		return errors.New("TLS is for HTTP: --tls-cert and --tls-self-signed exclude --stdio")
	}
	return nil
}

// certificate returns the certificate serve's TLS flags ask for: nil for
// plain HTTP; the pair of --tls-cert and --tls-key; or a fresh
// self-signed one, its CA written to --tls-self-signed's file (replacing
// what it held: a new server needs its new CA).
func (f *serveFlags) certificate(stderr io.Writer) (*tls.Certificate, error) {
	switch {
	case f.tlsCert != "":
		cert, err := tls.LoadX509KeyPair(f.tlsCert, f.tlsKey)
		if err != nil {
			return nil, fmt.Errorf("--tls-cert %q, --tls-key %q: %w", f.tlsCert, f.tlsKey, err)
		}
		return &cert, nil
	case f.tlsSelfSigned != "":
		cert, caPEM, err := targetserver.SelfSigned()
		if err != nil {
			return nil, err
		}
		if err := os.WriteFile(f.tlsSelfSigned, caPEM, 0o644); err != nil {
			return nil, fmt.Errorf("--tls-self-signed %q: write the CA: %w", f.tlsSelfSigned, err)
		}
		fmt.Fprintf(stderr, "mcpchaos serve: wrote the CA of a fresh certificate for 127.0.0.1, ::1 and localhost to %s\n", f.tlsSelfSigned)
		return &cert, nil
	}
	return nil, nil
}
