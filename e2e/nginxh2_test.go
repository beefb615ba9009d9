package e2e

import (
	"crypto/x509"
	"encoding/pem"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpchaos/mcpchaos/internal/runtest"
	"github.com/mcpchaos/mcpchaos/internal/scenarios"
	"github.com/mcpchaos/mcpchaos/internal/targetserver"
	"github.com/mcpchaos/mcpchaos/internal/testutil"
)

// TestNginxHTTP2: our own HTTP/2 framing against a server that is not
// Go's: nginx over TLS with http2, streaming (proxy_buffering off) to the
// built-in target over HTTP/1.1, with examples/gateways/nginx-streaming's
// scenario. The run speaks HTTP/2; progress is never held; a cancel's
// RST_STREAM makes nginx close the upstream request, and the target's own
// records say each cancelled call learned of it or answered first.
func TestNginxHTTP2(t *testing.T) {
	t.Parallel()
	testutil.NginxBinary(t)
	target := startTarget(t, targetserver.Config{})
	certFile, keyFile, ca := nginxCertificate(t)
	ng := startExampleNginxEdited(t, "nginx-streaming.conf", func(s string) string {
		return strings.Replace(s, "listen 127.0.0.1:8000;", "listen 127.0.0.1:8000 ssl http2;\n        ssl_certificate "+
			certFile+";\n        ssl_certificate_key "+keyFile+";", 1)
	}, target)
	sc, err := scenarios.Load(filepath.Join(gatewaysDir, "nginx-streaming.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	sc.Target.HTTP.URL = "https://" + ng.Addr + "/mcp"
	sc.Target.HTTP.TLS = &scenarios.TLS{CAFile: ca}
	sc.Gateway.Truth[0] = "http://" + target.Addr
	o := runPlan(t, sc, runtest.Plan(t, sc, bin.Need(t)))
	if o.Sum.HTTPVersion != "HTTP/2" {
		t.Fatalf("the run spoke %q to nginx, want HTTP/2", o.Sum.HTTPVersion)
	}
	withProgress, held := progressCalls(o.Recs)
	if withProgress == 0 || held != 0 {
		t.Errorf("%d of %d answered calls with progress had it held, want 0 of more than 0", held, withProgress)
	}
	if s := o.Sum; s.Calls.Cancelled == 0 || s.Calls.HTTPError != 0 || s.Progress.Violations.Total != 0 || s.Gateway.LostCancels != 0 {
		t.Errorf("calls.cancelled %d (want some), calls.http_error %d, progress.violations.total %d, gateway.lost_cancels %d (want 0)",
			s.Calls.Cancelled, s.Calls.HTTPError, s.Progress.Violations.Total, s.Gateway.LostCancels)
	}
	checkNginxRecords(t, o, "http://"+target.Addr, withProgress, 0)
}

// nginxCertificate writes a certificate for 127.0.0.1 and its key, as
// nginx reads them, and the CA that signed it.
func nginxCertificate(t *testing.T) (certFile, keyFile, ca string) {
	t.Helper()
	cert, ca := testCA(t)
	key, err := x509.MarshalPKCS8PrivateKey(cert.PrivateKey)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	for path, b := range map[string][]byte{
		certFile: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Certificate[0]}),
		keyFile:  pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: key}),
	} {
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return certFile, keyFile, ca
}
