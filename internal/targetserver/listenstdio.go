package targetserver

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"sync"

	"github.com/mcpchaos/mcpchaos/client/rpcmsg"
	"github.com/mcpchaos/mcpchaos/client/vocab"
	"github.com/mcpchaos/mcpchaos/internal/targetserver/knobs"
)

// The task_listen knob over stdio. A 2026 subscriptions/listen line is
// taken before the SDK sees it and served here (runListen, listen.go): its
// messages are written as whole lines on the session's stdout between the
// SDK's, each notification carrying the listen request's id in _meta, so
// the client can tell the stream's messages apart on the one pipe. A
// notifications/cancelled naming a running listen request stops it (the
// client's way to end a subscription on stdio); it also goes on to the
// SDK, which knows no such request and ignores it.

// maxStdioListens bounds the listen streams one stdio session runs at once.
const maxStdioListens = 1024

// stdioListens are a stdio session's listen streams.
type stdioListens struct {
	s       *Server
	ctx     context.Context
	out     io.Writer // whole-line writes (lockedWriter)
	mu      sync.Mutex
	running map[string]context.CancelFunc // by the listen request's id, as sent
	wg      sync.WaitGroup
}

// newStdioListens is nil when the knob serves no listen streams.
func (s *Server) newStdioListens(ctx context.Context, out io.Writer) *stdioListens {
	if !s.cfg.Tasks || s.cfg.TaskListen == "" || s.cfg.TaskListen == knobs.ListenOff {
		return nil
	}
	return &stdioListens{s: s, ctx: ctx, out: out, running: map[string]context.CancelFunc{}}
}

// take reports whether line was a listen request, now served here; a
// cancel of a running one stops it and is not taken.
func (l *stdioListens) take(line []byte) bool {
	if l == nil || !bytes.Contains(line, []byte(vocab.MethodSubscriptionsListen)) && !bytes.Contains(line, []byte(vocab.MethodCancelled)) {
		return false
	}
	var p listenParams
	if json.Unmarshal(line, &p) != nil {
		return false
	}
	switch {
	case p.Method == vocab.MethodCancelled:
		var c struct {
			Params struct {
				RequestID json.RawMessage `json:"requestId"`
			} `json:"params"`
		}
		if json.Unmarshal(line, &c) == nil {
			l.mu.Lock()
			cancel := l.running[string(c.Params.RequestID)]
			l.mu.Unlock()
			if cancel != nil {
				cancel()
			}
		}
		return false
	case p.Method != vocab.MethodSubscriptionsListen || len(p.ID) == 0 || !modernMeta(p.Params.Meta):
		return false // the SDK answers it
	case len(p.Params.Notifications.TaskIDs) > 0 && !declaresTasks(p.Params.Meta):
		l.writeError(p.ID, codeMissingCapability, "task notifications need the "+TasksExtension+" extension declared")
		return true
	}
	l.start(p)
	return true
}

// start runs one listen stream on its own goroutine.
func (l *stdioListens) start(p listenParams) {
	key := string(p.ID)
	ctx, cancel := context.WithCancel(l.ctx)
	l.mu.Lock()
	_, dup := l.running[key]
	full := len(l.running) >= maxStdioListens
	if !dup && !full {
		l.running[key] = cancel
	}
	l.mu.Unlock()
	if dup || full {
		cancel()
		l.writeError(p.ID, rpcmsg.CodeInternalError, "too many listen streams, or one with this id runs already")
		return
	}
	l.wg.Add(1)
	go func() {
		defer l.wg.Done()
		defer func() {
			l.mu.Lock()
			delete(l.running, key)
			l.mu.Unlock()
			cancel()
		}()
		l.s.runListen(ctx, p, func(msg []byte) bool {
			_, err := l.out.Write(append(msg, '\n'))
			return err == nil
		})
	}()
}

func (l *stdioListens) writeError(id json.RawMessage, code int64, message string) {
	_, _ = l.out.Write(append(rpcmsg.AppendError(nil, id, code, message, nil), '\n'))
}

// stop ends every listen stream and waits for them.
func (l *stdioListens) stop() {
	if l == nil {
		return
	}
	l.mu.Lock()
	for _, cancel := range l.running {
		cancel()
	}
	l.mu.Unlock()
	l.wg.Wait()
}
