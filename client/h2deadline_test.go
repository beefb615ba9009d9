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
// read "stream still open after the final response"); a stream whose
// deadline passed before the server ended it still fails.
func TestH2ConnEndBeforeDeadline(t *testing.T) {
	t.Parallel()
	for _, endFirst := range []bool{true, false} {
		name := map[bool]string{true: "the end came first", false: "the deadline came first"}[endFirst]
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			release := make(chan struct{})
			r := startRawH2(t, nil, func(p *h2Peer) {
				h := p.next(http2.FrameHeaders)
				p.answer(h.Header().StreamID, "text/event-stream", false)
				<-release
				_ = p.fr.WriteData(h.Header().StreamID, true, h2Answer)
				p.next() // until the client goes
			})
			s := request(t, r.dial(t))
			_ = s.SetReadDeadline(time.Now().Add(testutil.WaitLong))
			if _, err := s.response(); err != nil {
				t.Fatal(err)
			}
			if !endFirst { // the deadline passes, its timer runs, then the end comes
				_ = s.SetReadDeadline(time.Now().Add(10 * time.Millisecond))
				time.Sleep(50 * time.Millisecond)
			}
			close(release)
			if endFirst {
				for deadline := time.Now().Add(testutil.WaitLong); !streamEnded(s); time.Sleep(time.Millisecond) {
					if time.Now().After(deadline) {
						t.Fatal("the server's END_STREAM never came")
					}
				}
				_ = s.SetReadDeadline(time.Now().Add(10 * time.Millisecond))
				time.Sleep(50 * time.Millisecond) // past the deadline, its timer run
			}
			got, err := io.ReadAll(s)
			switch {
			case !endFirst && err == nil:
				t.Errorf("body %q read whole, want the deadline's error", got)
			case endFirst && (err != nil || !bytes.Equal(got, h2Answer)):
				t.Errorf("after the deadline: body %q, %v; want the body the server sent before it, then its end", got, err)
			}
		})
	}
}

// streamEnded says whether the server's END_STREAM came on s.
func streamEnded(s *h2Stream) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ended
}
