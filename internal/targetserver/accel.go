package targetserver

import "net/http"

// accelBuffering adds `X-Accel-Buffering: no` to every response whose
// Content-Type is text/event-stream (Config.XAccelBuffering): the header
// nginx reads to pass a response on as it comes instead of buffering it,
// which the 2026-07-28 transport says SSE responses SHOULD carry. Most SDK
// servers do not send it, so it is off by default.
func accelBuffering(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(&accelWriter{ResponseWriter: w}, r)
	})
}

// accelWriter sets the header when the status is written.
type accelWriter struct {
	http.ResponseWriter
	wrote bool
}

func (w *accelWriter) WriteHeader(status int) {
	if !w.wrote {
		w.wrote = true
		if h := w.Header(); h.Get("Content-Type") == "text/event-stream" {
			h.Set("X-Accel-Buffering", "no")
		}
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *accelWriter) Write(b []byte) (int, error) {
	if !w.wrote {
		w.WriteHeader(http.StatusOK)
	}
	return w.ResponseWriter.Write(b)
}

// Flush passes on a flush: SSE events go out as they are written.
func (w *accelWriter) Flush() {
	if !w.wrote {
		w.WriteHeader(http.StatusOK)
	}
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (w *accelWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
