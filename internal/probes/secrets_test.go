package probes

import (
	"context"
	"strings"
	"testing"

	"github.com/mcpchaos/mcpchaos/internal/testutil"
)

// A scrape error names the URL with its credentials masked.
func TestMetricErrorHidesURLCredentials(t *testing.T) {
	closed := testutil.ClosedAddr(t)
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
