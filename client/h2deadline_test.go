package client

import (
	"bytes"
	"io"
	"testing"
	"time"

	"golang.org/x/net/http2"

	"github.com/mcpchaos/mcpchaos/internal/testutil"
)

// TestH2ConnEndBeforeDeadline: a stream the server ended before its read
// deadline is read to its end after the deadline, as when the reader did
// not get the CPU in between (before, the deadline failed it, and the call
// read "stream still open after the final response"); a deadline that had
// passed when the end came still fails it.
func TestH2ConnEndBeforeDeadline(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		deadline time.Duration // from when the end was seen
		wantErr  bool
	}{
		{"the end came first", 20 * time.Millisecond, false},
		{"the deadline came first", -time.Millisecond, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := startRawH2(t, nil, func(p *h2Peer) {
				h := p.next(http2.FrameHeaders)
				p.answer(h.Header().StreamID, "text/event-stream", false)
				_ = p.fr.WriteData(h.Header().StreamID, true, h2Answer)
				p.next() // until the client goes
			})
			s := request(t, r.dial(t))
			_ = s.SetReadDeadline(time.Now().Add(testutil.WaitLong))
			if _, err := s.response(); err != nil {
				t.Fatal(err)
			}
			for deadline := time.Now().Add(testutil.WaitLong); ; time.Sleep(time.Millisecond) {
				s.mu.Lock()
				ended := s.ended
				s.mu.Unlock()
				if ended {
					break
				}
				if time.Now().After(deadline) {
					t.Fatal("the server's END_STREAM never came")
				}
			}
			_ = s.SetReadDeadline(time.Now().Add(tt.deadline))
			time.Sleep(50 * time.Millisecond) // past the deadline, its timer run
			got, err := io.ReadAll(s)
			switch {
			case tt.wantErr && err == nil:
				t.Errorf("body %q read whole, want the deadline's error", got)
			case !tt.wantErr && (err != nil || !bytes.Equal(got, h2Answer)):
				t.Errorf("after the deadline: body %q, %v; want the body the server sent before it, then its end", got, err)
			}
		})
	}
}
