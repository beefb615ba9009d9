package proxy

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/mcpchaos/mcpchaos/client/vocab"
)

// relay writes a request's messages, read from an upstream shared by
// many requests (stdio, HTTP+SSE), to pw as SSE events until events is
// closed after the final response. When the client stops reading or
// ctx ends first (the client closed its stream), it calls cancel with the
// reason, for the upstream's own cancel; when ended is closed first (the
// upstream went away), it ends the stream with endErr.
func relay(ctx context.Context, events <-chan []byte, ended <-chan struct{}, endErr error, pw *io.PipeWriter, cancel func(reason string)) {
	for {
		select {
		case b, ok := <-events:
			if !ok {
				pw.Close()
				return
			}
			if _, err := fmt.Fprintf(pw, "event: message\ndata: %s\n\n", b); err != nil {
				cancel("the client stopped reading")
				return
			}
		case <-ctx.Done():
			cancel("the client closed its stream")
			pw.CloseWithError(ctx.Err())
			return
		case <-ended:
			pw.CloseWithError(endErr)
			return
		}
	}
}

// initializeVersion is the protocol version in an answer to an
// initialize request m, "" for any other message or a value no header
// can carry.
func initializeVersion(m *message, data []byte) string {
	if m.Method != vocab.MethodInitialize {
		return ""
	}
	var r struct {
		Result struct {
			Version string `json:"protocolVersion"`
		} `json:"result"`
	}
	if json.Unmarshal(data, &r) != nil || len(r.Result.Version) > 64 || !headerSafe(r.Result.Version) {
		return ""
	}
	return r.Result.Version
}

// headerSafe reports whether s is printable ASCII, safe in a header.
func headerSafe(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}
