package targetserver

import (
	"crypto/x509"
	"testing"
)

// TestSelfSigned: the certificate verifies, for server auth, against the
// CA it comes with, under each loopback name, and under no other.
func TestSelfSigned(t *testing.T) {
	cert, caPEM, err := SelfSigned()
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		t.Fatal("the CA is not PEM")
	}
	leaf, err := x509.ParseCertificate(cert.Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		ok   bool
	}{{"127.0.0.1", true}, {"::1", true}, {"localhost", true}, {"example.com", false}, {"10.0.0.1", false}} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := leaf.Verify(x509.VerifyOptions{DNSName: tc.name, Roots: pool, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}})
			if (err == nil) != tc.ok {
				t.Errorf("verify as %s: %v, want ok %v", tc.name, err, tc.ok)
			}
		})
	}
	if _, err := leaf.Verify(x509.VerifyOptions{DNSName: "localhost"}); err == nil {
		t.Error("the certificate verifies against the system roots")
	}
}
