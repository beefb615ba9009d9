package targetserver

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	mc "github.com/mcpchaos/mcpchaos/client"
)

// BenchmarkCancelToQuiet measures how long after our client cancels a
// running slow_task the target's inflight gauge is back at zero (the
// "within 50 ms" of a correct server), with the default knobs, over 2026
// HTTP (the cancel closes the stream) and a 2025 session (the cancel is a
// POSTed notifications/cancelled). The server runs in process so its
// counters can be read without a scrape.
//
//	go test -run '^$' -bench CancelToQuiet -benchtime 200x ./target/
func BenchmarkCancelToQuiet(b *testing.B) {
	for _, era := range []mc.Era{mc.Era20260728, mc.Era20251125} {
		b.Run("http-"+string(era), func(b *testing.B) {
			s, client := benchTarget(b, era)
			var took []time.Duration
			for b.Loop() {
				before := s.completedOrCancelled()
				call, err := client.Start(context.Background(), mc.CallRequest{Tool: ToolSlowTask,
					Arguments: json.RawMessage(`{"steps":1000,"step_ms":10}`)})
				if err != nil {
					b.Fatal(err)
				}
				go call.Wait()
				for s.Stats().Inflight == 0 {
					time.Sleep(50 * time.Microsecond)
				}
				at := time.Now()
				if err := call.Cancel("bench", false); err != nil {
					b.Fatal(err)
				}
				for s.Stats().Inflight != 0 || s.completedOrCancelled() == before {
					time.Sleep(20 * time.Microsecond)
				}
				took = append(took, time.Since(at))
			}
			slices.Sort(took)
			b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(took[len(took)*99/100].Microseconds())/1000, "p99-ms")
			b.ReportMetric(float64(took[len(took)-1].Microseconds())/1000, "max-ms")
		})
	}
}

func (s *Server) completedOrCancelled() int64 {
	st := s.Stats()
	return st.Completed + st.Cancelled
}

// benchTarget runs a target in process and connects our client to it.
func benchTarget(b *testing.B, era mc.Era) (*Server, *mc.Client) {
	b.Helper()
	r, err := StartHTTP(b.Context(), Config{}, "")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { r.Close() })
	c, err := mc.Dial(b.Context(), mc.Config{HTTP: &mc.HTTPConfig{URL: r.URL}, Protocol: era})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close(context.Background()) })
	return r.Server, c
}
