package proxy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/scenarios"
	"github.com/mcpchaos/mcpchaos/internal/testutil"
)

// written decodes every line written to w so far; each must be one record.
func written(t *testing.T, w *testutil.LockedWriter) []CallRecord {
	t.Helper()
	var out []CallRecord
	for i, line := range strings.Split(strings.TrimSuffix(w.String(), "\n"), "\n") {
		if line == "" {
			continue
		}
		var r CallRecord
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("line %d %q: %v", i+1, line, err)
		}
		out = append(out, r)
	}
	return out
}

func newTestRecorder() (*recorder, *testutil.LockedWriter) {
	r, l := newRecorder(), &testutil.LockedWriter{W: &bytes.Buffer{}}
	r.out.w = l
	return r, l
}

// call starts a call of client with id and arguments at t0+at.
func call(r *recorder, seq uint64, client string, id int, args string, at time.Duration) *openCall {
	return r.start(&CallRecord{Seq: seq, ID: json.RawMessage(fmt.Sprint(id)), Client: client, Tool: "echo",
		Start: t0.Add(at)}, json.RawMessage(args))
}

var t0 = time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC)

// TestRecordsStream: a record is written when its call settles — at its
// end, or for a call cancelled by a closed stream when the client's
// notification arrives, or for a throttled call at the client's next
// call — and flush ends what is open (open_at_stop) and writes whatever
// still waits.
func TestRecordsStream(t *testing.T) {
	tests := []struct {
		name string
		run  func(r *recorder)
		want []string // "seq reaction notified honoured" of each line, in order
	}{
		{"answered at its end", func(r *recorder) {
			r.end(call(r, 1, "a", 1, `{}`, 0), reactAnswered, "", t0.Add(time.Second))
		}, []string{"1 answered false -"}},
		{"a closed stream waits for the notification", func(r *recorder) {
			r.end(call(r, 1, "a", 1, `{}`, 0), reactCancelled, cancelStreamClosed, t0.Add(time.Second))
			r.cancelled("a", json.RawMessage("1"), t0.Add(time.Second))
		}, []string{"1 cancelled true -"}},
		{"a notification of another client is not ours", func(r *recorder) {
			r.end(call(r, 1, "a", 1, `{}`, 0), reactCancelled, cancelStreamClosed, t0.Add(time.Second))
			r.cancelled("b", json.RawMessage("1"), t0.Add(time.Second))
			r.flush()
		}, []string{"1 cancelled false -"}},
		{"a throttled call waits for the next call", func(r *recorder) {
			oc := call(r, 1, "a", 1, `{}`, 0)
			oc.rec.RetryAfterMs = 1000
			r.end(oc, reactThrottled, "", t0)
			r.end(call(r, 2, "a", 2, `{}`, 2*time.Second), reactAnswered, "", t0.Add(3*time.Second))
		}, []string{"1 throttled false true", "2 answered false -"}},
		{"flush writes what waits, in seq order", func(r *recorder) {
			oc := call(r, 1, "a", 1, `{}`, 0)
			oc.rec.RetryAfterMs = 1000
			r.end(oc, reactThrottled, "", t0)
			r.end(call(r, 2, "b", 1, `{}`, 0), reactCancelled, cancelStreamClosed, t0.Add(time.Second))
			r.flush()
		}, []string{"1 throttled false -", "2 cancelled false -"}},
		{"flush ends what is open as open_at_stop, for good", func(r *recorder) {
			oc := call(r, 1, "a", 1, `{}`, 0)
			r.flush()
			r.end(oc, reactCancelled, cancelStreamClosed, t0.Add(time.Second))
		}, []string{"1 open_at_stop false -"}},
		{"after flush nothing waits", func(r *recorder) {
			r.flush()
			r.end(call(r, 1, "a", 1, `{}`, 0), reactCancelled, cancelStreamClosed, t0.Add(time.Second))
		}, []string{"1 cancelled false -"}},
	}
	for _, tc := range tests {
		// In a bubble: the 2 s a closed stream waits passes only when the
		// case has nothing left to do, however busy the machine.
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r, l := newTestRecorder()
				tc.run(r)
				var got []string
				for _, rec := range written(t, l) {
					h := "-"
					if rec.RetryAfterHonoured != nil {
						h = fmt.Sprint(*rec.RetryAfterHonoured)
					}
					got = append(got, fmt.Sprintf("%d %s %v %s", rec.Seq, rec.Reaction, rec.CancelNotified, h))
				}
				if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
					t.Fatalf("written:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
				}
			})
		})
	}
}

// TestRecorderBounded runs many more calls through the recorder than any
// of its bounds, of many clients, none answered (each stays a re-issue
// candidate) and a third throttled (each awaits its client's next call):
// every record is written, the summary counts them all, and what stays in
// memory is within the documented caps.
func TestRecorderBounded(t *testing.T) {
	const n = 5 * maxIndexed
	r, l := newTestRecorder()
	for i := range n {
		client := fmt.Sprintf("c%d", i)
		oc := call(r, uint64(i+1), client, i, fmt.Sprintf(`{"i":%d}`, i), 0)
		switch i % 3 {
		case 0:
			oc.rec.RetryAfterMs = 1000
			r.end(oc, reactThrottled, "", t0)
		case 1:
			r.end(oc, reactCancelled, cancelStreamClosed, t0.Add(time.Second))
		default:
			r.end(oc, reactNeverCancelled, "", t0.Add(time.Minute))
		}
	}
	open, pending, recent := r.retained()
	if open != 0 || pending > 2*maxIndexed || recent != maxRecent || r.unfilled.Len() > maxIndexed {
		t.Fatalf("retained: %d open, %d pending, %d recent, %d re-issue candidates; want 0, at most %d, %d, at most %d",
			open, pending, recent, r.unfilled.Len(), 2*maxIndexed, maxRecent, maxIndexed)
	}
	if len(r.unfilled.order) > 2*maxIndexed+1 || len(r.notify.order) > 2*maxIndexed+1 {
		t.Fatalf("index order grew: %d, %d", len(r.unfilled.order), len(r.notify.order))
	}
	r.flush()
	if got := len(written(t, l)); got != n {
		t.Fatalf("%d records written, want %d", got, n)
	}
	sum := r.summary()
	const cancelled = (n + 1) / 3 // i%3 == 1
	if sum.Calls != n || sum.Cancelled != cancelled || sum.CancelAfterMs.Count != cancelled || sum.CancelAfterMs.Max != 1000 {
		t.Fatalf("summary %+v", sum)
	}
}

// BenchmarkRecorder reports the bytes a call costs the recorder: flat, as
// nothing of an ended call is kept beyond the bounds.
func BenchmarkRecorder(b *testing.B) {
	r := newRecorder()
	r.out.w = &bytes.Buffer{}
	for i := 0; b.Loop(); i++ {
		oc := call(r, uint64(i+1), "c", i, fmt.Sprintf(`{"i":%d}`, i), 0)
		r.end(oc, reactNeverCancelled, "", t0.Add(time.Second))
		if i%1024 == 0 {
			r.out.w = &bytes.Buffer{}
		}
	}
}

func TestClientOf(t *testing.T) {
	long := strings.Repeat("x", 300)
	tests := []struct {
		name, header string
		set          map[string]string
		remote       string
		want         string
	}{
		{"session", "X-Client-Id", map[string]string{"Mcp-Session-Id": "s1", "X-Client-Id": "a"}, "127.0.0.1:5", "session:s1"},
		{"identity header", "x-client-id", map[string]string{"X-Client-Id": "a", "User-Agent": "ua"}, "127.0.0.1:5", "X-Client-Id:a"},
		{"no identity header configured", "", map[string]string{"X-Client-Id": "a", "User-Agent": "ua/1"}, "127.0.0.1:5", "127.0.0.1 ua/1"},
		{"identity header absent", "X-Client-Id", map[string]string{"User-Agent": "ua/1"}, "[::1]:7", "::1 ua/1"},
		{"cut at 256 bytes", "X-Client-Id", map[string]string{"X-Client-Id": long}, "127.0.0.1:5", "X-Client-Id:" + long[:256]},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := &Proxy{file: &scenarios.ProxyFile{IdentityHeader: tc.header}}
			req := httptest.NewRequest("POST", "/mcp", nil)
			req.RemoteAddr = tc.remote
			req.Header.Del("User-Agent")
			for k, v := range tc.set {
				req.Header.Set(k, v)
			}
			if got := p.clientOf(req); got != tc.want {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// TestLongID: a hostile client's long request id is kept as its digest,
// in the record and the indexes, and its notifications/cancelled (the
// same id written with other white space) still finds the call.
func TestLongID(t *testing.T) {
	// In a bubble: the 2 s a closed stream waits for the client's
	// notification is not spent hashing a MiB under -race on a busy machine.
	synctest.Test(t, func(t *testing.T) {
		r, l := newTestRecorder()
		long := `"` + strings.Repeat("x", 1<<20) + `"`
		oc := r.start(&CallRecord{Seq: 1, ID: json.RawMessage(long), Client: "a", Tool: strings.Repeat("t", 1<<20), Start: t0}, json.RawMessage(`{}`))
		r.end(oc, reactCancelled, cancelStreamClosed, t0.Add(time.Second))
		r.cancelled("a", json.RawMessage(" "+long+" "), t0.Add(time.Second))
		recs := written(t, l)
		if len(recs) != 1 || !recs[0].CancelNotified || !strings.HasPrefix(string(recs[0].ID), `"sha256:`) || len(recs[0].Tool) != maxIdentity {
			t.Fatalf("got %d records, the first with id %.80s, tool of %d bytes, notified %v", len(recs), recs[0].ID, len(recs[0].Tool), recs[0].CancelNotified)
		}
		if n := l.String(); len(n) > 4<<10 {
			t.Errorf("the record is %d bytes", len(n))
		}
	})
}

// TestReissueWindow: a later identical call re-issues an unanswered one
// when it reuses the id, whenever it comes, or with a new id within
// reissueWindow of that call's end; later, it is the client's next call.
func TestReissueWindow(t *testing.T) {
	for _, tc := range []struct {
		name  string
		id    int
		after time.Duration // from the first call's end
		want  string
	}{
		{"new id at once", 2, 100 * time.Millisecond, "new_id"},
		{"new id within the window", 2, reissueWindow, "new_id"},
		{"new id beyond the window", 2, reissueWindow + time.Millisecond, ""},
		{"same id beyond the window", 1, time.Minute, "same_id"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, _ := newTestRecorder()
			r.end(call(r, 1, "a", 1, `{"x":1}`, 0), reactThrottled, "", t0.Add(time.Second))
			oc := call(r, 2, "a", tc.id, `{"x":1}`, time.Second+tc.after)
			if oc.rec.Reissue != tc.want || (tc.want != "" && oc.rec.ReissueOf != 1) {
				t.Errorf("reissue %q of %d, want %q of 1", oc.rec.Reissue, oc.rec.ReissueOf, tc.want)
			}
			if sum := r.summary(); (sum.Reissued == 1) != (tc.want != "") {
				t.Errorf("summary reissued %d, want it counted only for a re-issue", sum.Reissued)
			}
		})
	}
}

// TestGaveUp: in a 2025 session (legacy) a closed stream is no cancel: a
// call whose client closed it and sent no notifications/cancelled within
// notifyGrace gave up; one whose notification follows cancelled (by
// notification); in 2026 the closed stream is the cancel.
func TestGaveUp(t *testing.T) {
	for _, tc := range []struct {
		name     string
		legacy   bool
		notify   bool
		reaction string
		how      string
		gaveUp   int64
		byNotify int64
		byClose  int64
	}{
		{"2025, no notification", true, false, "gave_up", "", 1, 0, 0},
		{"2025, notification after the close", true, true, "cancelled", "notification", 0, 1, 0},
		{"2026, closed stream", false, false, "cancelled", "stream_closed", 0, 0, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r, l := newTestRecorder()
				oc := r.start(&CallRecord{Seq: 1, ID: json.RawMessage("1"), Client: "a", Tool: "echo", Start: t0, legacy: tc.legacy},
					json.RawMessage(`{}`))
				r.end(oc, reactCancelled, cancelStreamClosed, t0.Add(time.Second))
				if tc.notify {
					r.cancelled("a", json.RawMessage("1"), t0.Add(1200*time.Millisecond))
				}
				time.Sleep(notifyGrace + time.Second)
				synctest.Wait()
				recs := written(t, l)
				sum := r.summary()
				if len(recs) != 1 || recs[0].Reaction != tc.reaction || recs[0].CancelHow != tc.how {
					t.Fatalf("records %+v, want one %s (%s)", recs, tc.reaction, tc.how)
				}
				if sum.GaveUp != tc.gaveUp || sum.CancelledByNotify != tc.byNotify || sum.CancelledByClose != tc.byClose ||
					sum.Cancelled != tc.byNotify+tc.byClose {
					t.Errorf("summary %+v", sum)
				}
				if tc.reaction == "gave_up" && recs[0].ClosedAfterMs != 1000 {
					t.Errorf("closed_after_ms %v, want 1000", recs[0].ClosedAfterMs)
				}
			})
		})
	}
}
