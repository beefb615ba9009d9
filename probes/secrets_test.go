package probes

import (
	"context"
	"net"
	"strings"
	"testing"
)

// A scrape error names the URL with its credentials masked.
func TestMetricErrorHidesURLCredentials(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	ln.Close()
	for _, u := range []string{
		"http://me:pw-secret@" + closed + "/metrics?token=tok-secret",
		"http://me:pw-secret@127.0.0.1:bad/metrics?token=tok-secret",
	} {
		_, err := NewMetric(u, "g", nil).Sample(context.Background())
		if err == nil {
			t.Fatalf("scrape of %s succeeded", closed)
		}
		if msg := err.Error(); strings.Contains(msg, "pw-secret") || strings.Contains(msg, "tok-secret") || !strings.Contains(msg, "[redacted]") {
			t.Errorf("error %q: want the credentials masked", msg)
		}
	}
}
