package client

import (
	"bufio"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/client/vocab"
)

// The receive path for one progress notification, as the SDK writes it on
// a 2026 Streamable HTTP response stream (captured from go-sdk v1.8.0).
const sdkProgressEvent = "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":\"p5\",\"progress\":1,\"total\":2}}\n\n"

// repeatReader reads the same bytes for ever.
type repeatReader struct {
	b []byte
	i int
}

func (r *repeatReader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		k := copy(p[n:], r.b[r.i:])
		n += k
		r.i = (r.i + k) % len(r.b)
	}
	return n, nil
}

// countObserver counts progress events.
type countObserver struct {
	progress, other int
	last            float64
}

func (o *countObserver) OnEvent(ev Event) {
	if ev.Kind == EvProgress {
		o.progress++
		o.last = ev.Progress
		return
	}
	o.other++
}

// benchCall is a real *Call with id and token 5, on a client whose
// IDSource has issued 1..5.
func benchCall(obs Observer) *Call {
	c := &Client{cfg: Config{MaxMessageBytes: defaultMaxMessage, LateWindow: defaultLate}, ids: new(IDSource), era: Era20260728}
	for c.ids.Next() < 4 {
	}
	call := c.newCall(vocab.MethodToolsCall, "slow", obs)
	call.tok = call.id
	return call
}

// sseStep returns a function that receives one SDK progress event from an
// SSE stream and delivers it to a real *Call: sseReader.next +
// decodeMessage + Call.deliver (decode the progress params, map the token
// to the call, emit to the Observer).
func sseStep(tb testing.TB) (step func(), obs *countObserver) {
	return sseStepOn(tb, bufio.NewReaderSize(&repeatReader{b: []byte(sdkProgressEvent)}, 4096))
}

// sseStepOn is sseStep reading the stream from src.
func sseStepOn(tb testing.TB, src lineSource) (step func(), obs *countObserver) {
	obs = &countObserver{}
	call := benchCall(obs)
	sse := newSSEReader(src, defaultMaxMessage)
	var sc scanner
	var m inMsg
	return func() {
		data, err := sse.next()
		if err != nil {
			tb.Fatal(err)
		}
		if err := decodeMessage(&sc, data, &m); err != nil {
			tb.Fatal(err)
		}
		if final, _ := call.deliver(&sc, &m, time.Now()); final {
			tb.Fatal("a progress event was taken for the final response")
		}
	}, obs
}

// frameReader reads one copy of b a Read, as an HTTP/2 stream delivers an
// event a DATA frame; a read of no bytes (the wait for data) returns
// nothing.
type frameReader struct{ b []byte }

func (r frameReader) Read(p []byte) (int, error) { return copy(p, r.b), nil }

// sseStreamStep is sseStep on an HTTP/2 stream: read through a
// streamReader, which takes its buffer from the pool for each event and
// gives it back before waiting for the next.
func sseStreamStep(tb testing.TB) (step func(), obs *countObserver) {
	sr := new(streamReader)
	sr.reset(frameReader{[]byte(sdkProgressEvent)})
	return sseStepOn(tb, sr)
}

// stdioStep is the same for one stdout line: lineReader.next +
// decodeMessage + stdioTransport.route (token → call lookup, emit).
func stdioStep(tb testing.TB) (step func(), obs *countObserver) {
	obs = &countObserver{}
	call := benchCall(obs)
	tr := &stdioTransport{c: call.c, calls: map[int64]*Call{call.id: call}}
	line := "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":\"p5\",\"progress\":1,\"total\":2}}\n"
	lr := lineReader{br: bufio.NewReaderSize(&repeatReader{b: []byte(line)}, 64<<10), max: defaultMaxMessage}
	var sc scanner
	var m inMsg
	return func() {
		data, err := lr.next(true, 4096)
		if err != nil {
			tb.Fatal(err)
		}
		if err := decodeMessage(&sc, data, &m); err != nil {
			tb.Fatal(err)
		}
		tr.route(&sc, &m, time.Now())
	}, obs
}

func runReceiveBench(b *testing.B, mk func(testing.TB) (func(), *countObserver), size int) {
	step, obs := mk(b)
	b.SetBytes(int64(size))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		step()
	}
	b.StopTimer()
	if obs.progress != b.N || obs.other != 0 || obs.last != 1 {
		b.Fatalf("observer saw %d progress and %d other events for %d messages", obs.progress, obs.other, b.N)
	}
}

func BenchmarkReceiveProgress(b *testing.B) {
	runReceiveBench(b, sseStep, len(sdkProgressEvent))
}

func BenchmarkReceiveProgressH2Stream(b *testing.B) {
	runReceiveBench(b, sseStreamStep, len(sdkProgressEvent))
}

func BenchmarkReceiveProgressStdio(b *testing.B) {
	runReceiveBench(b, stdioStep, len(sdkProgressEvent)-len("event: message\ndata: \n"))
}

// TestReceiveProgressAllocs pins the receive path at zero allocations per
// progress event, so a change that makes it allocate fails a plain go test.
func TestReceiveProgressAllocs(t *testing.T) {
	for name, mk := range map[string]func(testing.TB) (func(), *countObserver){"sse": sseStep, "h2 stream": sseStreamStep, "stdio": stdioStep} {
		step, obs := mk(t)
		if a := testing.AllocsPerRun(2000, step); a != 0 {
			t.Errorf("%s: %v allocations per progress event, want 0", name, a)
		}
		if obs.progress != 2001 || obs.other != 0 {
			t.Errorf("%s: observer saw %d progress, %d other", name, obs.progress, obs.other)
		}
	}
}
