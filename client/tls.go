package client

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
)

// TLSOptions configures the connections to an https:// endpoint. The zero
// value verifies the server against the system roots and the URL's host.
type TLSOptions struct {
	CAFile string // PEM CA certificates trusted instead of the system roots
	// CertFile and KeyFile are a client certificate and its key (PEM),
	// both or neither.
	CertFile, KeyFile string
	ServerName        string // the name the certificate must hold; "" = the URL's host
	// InsecureSkipVerify accepts any certificate (test servers only).
	InsecureSkipVerify bool
}

// maxPEMBytes bounds a CA, certificate or key file.
const maxPEMBytes = 4 << 20

// tlsConfig builds the client's TLS configuration for host. Every file is
// read here, once, so a bad path fails Dial with the path quoted. ALPN
// offers h2 (when h2 is set) and http/1.1.
func tlsConfig(host string, o *TLSOptions, h2 bool) (*tls.Config, error) {
	cfg := &tls.Config{ServerName: host, NextProtos: []string{"http/1.1"}, MinVersion: tls.VersionTLS12}
	if h2 {
		cfg.NextProtos = []string{"h2", "http/1.1"}
	}
	if o == nil {
		return cfg, nil
	}
	if o.ServerName != "" {
		cfg.ServerName = o.ServerName
	}
	cfg.InsecureSkipVerify = o.InsecureSkipVerify
	if o.CAFile != "" {
		pem, err := readPEM("ca_file", o.CAFile)
		if err != nil {
			return nil, err
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("tls: ca_file %q holds no PEM certificate", o.CAFile)
		}
		cfg.RootCAs = pool
	}
	if (o.CertFile == "") != (o.KeyFile == "") {
		return nil, errors.New("tls: cert_file and key_file go together")
	}
	if o.CertFile != "" {
		certPEM, err := readPEM("cert_file", o.CertFile)
		if err != nil {
			return nil, err
		}
		keyPEM, err := readPEM("key_file", o.KeyFile)
		if err != nil {
			return nil, err
		}
		cert, err := tls.X509KeyPair(certPEM, keyPEM)
		if err != nil {
			return nil, fmt.Errorf("tls: cert_file %q and key_file %q: %w", o.CertFile, o.KeyFile, err)
		}
		cfg.Certificates = []tls.Certificate{cert}
	}
	return cfg, nil
}

func readPEM(key, path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("tls: %s %q: %w", key, path, unwrapPath(err))
	}
	defer f.Close()
	b := make([]byte, 0, 8<<10)
	b, err = readBounded(f, &b, maxPEMBytes)
	if err != nil {
		return nil, fmt.Errorf("tls: %s %q: %w", key, path, err)
	}
	return b, nil
}

// unwrapPath drops the path from an *os.PathError (the caller quotes it).
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// explainTLS says what a failed handshake means and which option fixes it.
func explainTLS(err error, serverName string) error {
	var unknown x509.UnknownAuthorityError
	var host x509.HostnameError
	var invalid x509.CertificateInvalidError
	var record tls.RecordHeaderError
	switch {
	case errors.As(err, &unknown):
		return fmt.Errorf("%w: the server's certificate is signed by an unknown authority (%s); set tls.ca_file to the PEM file of the CA that signed it (or insecure_skip_verify: true for a throwaway test server)", err, issuer(unknown.Cert))
	case errors.As(err, &host):
		return fmt.Errorf("%w: the server's certificate does not hold the name %q (it holds %s); set tls.server_name to one of those, or use a URL with that host", err, serverName, certNames(host.Certificate))
	case errors.As(err, &invalid):
		return fmt.Errorf("%w: the server's certificate is not valid (%s)", err, invalid.Detail)
	case errors.As(err, &record):
		return fmt.Errorf("%w: the server does not speak TLS on this port (should the URL start with http://?)", err)
	}
	return err
}

func issuer(c *x509.Certificate) string {
	if c == nil {
		return "issuer unknown"
	}
	return "issuer " + strings.TrimSpace(c.Issuer.String())
}

func certNames(c *x509.Certificate) string {
	if c == nil {
		return "no names"
	}
	var names []string
	names = append(names, c.DNSNames...)
	for _, ip := range c.IPAddresses {
		names = append(names, net.IP(ip).String())
	}
	if len(names) == 0 {
		return "no DNS or IP names"
	}
	return strings.Join(names, ", ")
}
