package targetserver

import (
	"crypto/tls"
	"crypto/x509"
	"io"
	"testing"
	"time"

	"golang.org/x/net/http2"
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

// TestH2MaxStreams: over HTTPS the server's SETTINGS carry its stream
// limit: the standard library's 250 by default, h2_max_streams when set.
func TestH2MaxStreams(t *testing.T) {
	for _, tc := range []struct {
		name string
		set  int
		want uint32
	}{{"default", 0, 250}, {"set", 5000, 5000}} {
		t.Run(tc.name, func(t *testing.T) {
			cert, caPEM, err := SelfSigned()
			if err != nil {
				t.Fatal(err)
			}
			r, err := StartHTTPS(t.Context(), Config{H2MaxStreams: tc.set}, "", &cert)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { r.Close() })
			pool := x509.NewCertPool()
			pool.AppendCertsFromPEM(caPEM)
			nc, err := tls.Dial("tcp", r.Addr, &tls.Config{RootCAs: pool, ServerName: "127.0.0.1", NextProtos: []string{"h2"}})
			if err != nil {
				t.Fatal(err)
			}
			defer nc.Close()
			_ = nc.SetDeadline(time.Now().Add(10 * time.Second))
			if _, err := io.WriteString(nc, http2.ClientPreface); err != nil {
				t.Fatal(err)
			}
			fr := http2.NewFramer(nc, nc)
			if err := fr.WriteSettings(); err != nil {
				t.Fatal(err)
			}
			f, err := fr.ReadFrame()
			if err != nil {
				t.Fatal(err)
			}
			sf, ok := f.(*http2.SettingsFrame)
			if !ok {
				t.Fatalf("the server's first frame is %v, not SETTINGS", f.Header().Type)
			}
			if got, ok := sf.Value(http2.SettingMaxConcurrentStreams); !ok || got != tc.want {
				t.Errorf("SETTINGS_MAX_CONCURRENT_STREAMS %d (sent: %v), want %d", got, ok, tc.want)
			}
		})
	}
}
