package merge

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/results"
)

// everyKind returns calls with every kind of member a record can have, at
// i ms after start.
func everyKind(start time.Time, i int) []results.Record {
	at := start.Add(time.Duration(i) * time.Millisecond)
	code, ra, hint, reset := int64(-32603), int64(1500+i%7), int64(2000), int64(900)
	base := results.Record{Type: results.TypeCall, ID: int64(i + 1), Seq: uint64(i), Tool: "slow_task", Scheduled: at,
		SentUs: 30 + int64(i%40), ResponseUs: 4000 + int64(i*7919%9973), EndUs: 4001 + int64(i*7919%9973), Outcome: results.OK, Status: 200,
		Policies: map[string]string{"reset_only": "ok", "cap": "ok"}}
	recs := make([]results.Record, 8)
	for k := range recs {
		recs[k] = base
		recs[k].ID, recs[k].Seq = int64(8*i+k+1), uint64(8*i+k)
	}
	recs[0].Progress = &results.Progress{Count: 3, Values: []float64{1, 2, 3}, Last: 3, Total: 3, MaxGapUs: 700 + int64(i%90), MaxRateHz: 3}
	recs[0].FirstProgUs = 900
	recs[1].Outcome, recs[1].ResponseUs, recs[1].CancelUs, recs[1].CancelReason = results.Cancelled, 0, 2000, results.FaultStop("cancel")
	recs[1].Faults = []results.Fault{{Kind: "cancel", ScheduledUs: 2000, ActualUs: 2000 + int64(i%300), ErrorUs: int64(i % 300), Detail: "answered; server srv-1"},
		{Kind: "disconnect", Mode: "rst", Skipped: true}}
	recs[1].LateResponses, recs[1].LeftoverUs, recs[1].Violations = i%2, int64(i%3)*1000, results.Counts{"after_cancel": i % 2}
	recs[2].Outcome, recs[2].Code, recs[2].Message = results.RPCError, &code, fmt.Sprintf("internal error %d", i%5)
	recs[3].Outcome, recs[3].Status, recs[3].ThrottleKind, recs[3].RetryAfterMs = results.Throttled, 429, "http_429", &ra
	recs[3].RetryHintMs, recs[3].RetryHintFrom, recs[3].RateLimitLimit, recs[3].RateLimitWindowMs = &hint, "data.retryAfter", 100, 1000
	recs[3].RateLimitFrom, recs[3].RateLimitResetMs, recs[3].Retry, recs[3].Of, recs[3].Attempt = "RateLimit-Limit", &reset, "throttled", 3, 2
	recs[4].Outcome, recs[4].ResponseUs, recs[4].DeadlineUs, recs[4].TimeoutErrUs = results.TimeoutCap, 0, 5000, 40+int64(i%60)
	recs[4].CapWithProgress, recs[4].Policies = true, map[string]string{"reset_only": "waited_forever", "cap": "killed"}
	recs[5].Rounds, recs[5].LoadShed, recs[5].Inputs, recs[5].ThinkUs, recs[5].ContentMismatch = 2, 1, results.Counts{"elicitation": 1, "sampling": i % 2}, 300, i%2
	recs[5].Task = &results.Task{ID: fmt.Sprint("t", i), Status: "completed", CreatedUs: 100, EndUs: 3000, IntervalMs: 50, Polls: 4, Updates: 1, Listened: true, Pushed: 2}
	recs[6].Outcome, recs[6].Limit, recs[6].ID, recs[6].SentUs, recs[6].ResponseUs = results.ClientLimit, results.LimitFDs, 0, 0, 0
	recs[7].Phase, recs[7].Retry, recs[7].Of, recs[7].Tool, recs[7].Error = "burst", "reissue", 5, "echo", "the connection failed without an answer"
	return recs
}

// TestParallelScanSummary: the summary of a file read with the parallel
// scan (several chunks, every kind of record, samples, a torn last line)
// is byte for byte the summary the serial scan (one CPU) gives.
func TestParallelScanSummary(t *testing.T) {
	run, err := os.ReadFile(runFile)
	if err != nil {
		t.Fatal(err)
	}
	header, _, _ := bytes.Cut(run, []byte("\n"))
	start := time.Date(2026, 12, 3, 11, 0, 20, 0, time.UTC)
	var buf bytes.Buffer
	buf.Write(header)
	buf.WriteByte('\n')
	enc := json.NewEncoder(&buf)
	for i := range 1500 { // 12,000 calls, about 5 MB: several chunks
		for _, r := range everyKind(start, i) {
			if err := enc.Encode(&r); err != nil {
				t.Fatal(err)
			}
		}
		if i%50 == 0 {
			s := results.Sample{Type: results.TypeSample, T: start.Add(time.Duration(i) * time.Millisecond), ClientInFlight: i % 13,
				OfferedRate: 8000, Probes: map[string]float64{"inflight": float64(i % 11)}}
			if err := enc.Encode(&s); err != nil {
				t.Fatal(err)
			}
		}
	}
	buf.WriteString(`{"type":"call","id":99999,"seq":99999,"tool":"slow_task","t":"2026-12-03T11:00:2`)
	path := filepath.Join(t.TempDir(), "every.jsonl")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	summary := func(procs int) (string, string, *Merged) {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		return mergeSummary(t, path)
	}
	txt1, js1, m1 := summary(1)
	txt4, js4, m4 := summary(4)
	if !m1.Files[0].Torn || m1.Files[0].Records != 12000 {
		t.Fatalf("serial scan: torn %v, %d records; want torn, 12000", m1.Files[0].Torn, m1.Files[0].Records)
	}
	if js4 != js1 || txt4 != txt1 {
		t.Errorf("the parallel scan's summary differs from the serial one's:\n%s\nserial:\n%s", js4, js1)
	}
	if !reflect.DeepEqual(m4.Files, m1.Files) || !reflect.DeepEqual(m4.Notes, m1.Notes) {
		t.Errorf("files and notes: %+v %q; serial: %+v %q", m4.Files, m4.Notes, m1.Files, m1.Notes)
	}
}
