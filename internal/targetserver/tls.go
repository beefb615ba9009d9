package targetserver

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"time"
)

// TLS for the built-in target: `mcpchaos serve --tls-cert/--tls-key`, or a
// fresh self-signed pair (--tls-self-signed) whose CA a scenario trusts
// with target.http.tls.ca_file. The server offers h2 and http/1.1 on ALPN.

// selfSignedHosts are the names a self-signed certificate holds: the
// target only ever listens on loopback for load.
var selfSignedHosts = []string{"127.0.0.1", "::1", "localhost"}

// selfSignedLife is how long a self-signed certificate is valid: a run,
// or a day of them.
const selfSignedLife = 48 * time.Hour

// SelfSigned makes a fresh CA and a server certificate it signs for
// 127.0.0.1, ::1 and localhost (ECDSA P-256). It returns the server's
// certificate and the CA's certificate as PEM, for a client to trust.
func SelfSigned() (tls.Certificate, []byte, error) { return SelfSignedFor(selfSignedHosts...) }

// SelfSignedFor is SelfSigned for other names: each an IP address or a
// DNS name (tests serve "mcp.test" on 127.0.0.1).
func SelfSignedFor(hosts ...string) (tls.Certificate, []byte, error) {
	now := time.Now()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, nil, fmt.Errorf("self-signed: CA key: %w", err)
	}
	ca := &x509.Certificate{SerialNumber: serial(), Subject: pkix.Name{CommonName: "mcpchaos serve CA"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(selfSignedLife), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageCRLSign, MaxPathLenZero: true}
	caDER, err := x509.CreateCertificate(rand.Reader, ca, ca, &caKey.PublicKey, caKey)
	if err != nil {
		return tls.Certificate{}, nil, fmt.Errorf("self-signed: CA certificate: %w", err)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, nil, fmt.Errorf("self-signed: server key: %w", err)
	}
	leaf := &x509.Certificate{SerialNumber: serial(), Subject: pkix.Name{CommonName: "localhost"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(selfSignedLife),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			leaf.IPAddresses = append(leaf.IPAddresses, ip)
		} else {
			leaf.DNSNames = append(leaf.DNSNames, h)
		}
	}
	leafDER, err := x509.CreateCertificate(rand.Reader, leaf, ca, &key.PublicKey, caKey)
	if err != nil {
		return tls.Certificate{}, nil, fmt.Errorf("self-signed: server certificate: %w", err)
	}
	cert := tls.Certificate{Certificate: [][]byte{leafDER}, PrivateKey: key}
	return cert, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}), nil
}

// serial is a random 128-bit certificate serial number.
func serial() *big.Int {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 128))
	if err != nil {
		return big.NewInt(time.Now().UnixNano()) // crypto/rand does not fail on Linux
	}
	return n
}

// serverTLS is the target's TLS configuration for cert: h2 first on
// ALPN, then http/1.1.
func serverTLS(cert tls.Certificate) *tls.Config {
	return &tls.Config{Certificates: []tls.Certificate{cert}, NextProtos: []string{"h2", "http/1.1"},
		MinVersion: tls.VersionTLS12}
}
