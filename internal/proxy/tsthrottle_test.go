package proxy_test

import (
	"context"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"

	"github.com/mcpchaos/mcpchaos/internal/testutil"
)

// TestTypeScriptThrottled: the TypeScript SDK 1.32.2 client behind the
// throttle (HTTP 503, Retry-After 1 s). Its Streamable HTTP transport
// turns the 503 into an error for the caller and retries nothing by
// itself, neither at once nor after the Retry-After: in the 2 s it stays
// connected after the error, no other call reaches the proxy. The record
// says so: one call, throttled, no re-issue, and no retry to judge
// against the Retry-After (retry_after_honoured unset).
func TestTypeScriptThrottled(t *testing.T) {
	t.Parallel()
	modules := testutil.NpmClients(t, "@modelcontextprotocol/sdk")
	r := startProxy(t, "1m", "  - {kind: throttle, status: 503, retry_after: 1s, rpc_code: -32001}\n")
	ctx, cancel := context.WithTimeout(t.Context(), testutil.WaitLong)
	defer cancel()
	out, err := exec.CommandContext(ctx, "node", "testdata/tsthrottle.mjs", modules, r.url, "2000").CombinedOutput()
	if err != nil {
		t.Fatalf("the TypeScript client: %v\n%s", err, out)
	}
	var got struct {
		Outcome, Error string
		Code           int
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &got); err != nil {
		t.Fatalf("the TypeScript client said %s: %v", out, err)
	}
	if got.Outcome != "error" || got.Code != 503 {
		t.Fatalf("the TypeScript client said %+v; want its call to fail with the 503", got)
	}
	t.Logf("the TypeScript client: %+v", got)
	r.stop()
	recs := r.p.Records()
	if len(recs) != 1 || recs[0].Reaction != "throttled" || recs[0].RetryAfterHonoured != nil || recs[0].ReissueOf != 0 {
		t.Fatalf("want one call, throttled, neither retried nor re-issued:\n%s", dump(recs))
	}
	if sum := r.p.Summary().Clients; sum.Reissued != 0 || sum.RetryAfterHonoured != 0 || sum.RetryAfterIgnored != 0 {
		t.Errorf("summary %+v: want no re-issue and no retry judged", sum)
	}
}
