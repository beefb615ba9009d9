package export

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"

	"github.com/mcpchaos/mcpchaos/results"
)

// TestVegetaReadsOurResults: our export of a real run, in each encoding,
// decoded by vegeta's own decoders, gives one result per call with the
// call's latency, timestamp, code and error; vegeta's metrics count our ok
// calls as its successes.
func TestVegetaReadsOurResults(t *testing.T) {
	f, err := results.Open(runFile)
	if err != nil {
		t.Fatal(err)
	}
	decoders := map[string]func(io.Reader) vegeta.Decoder{
		"gob": vegeta.NewDecoder, "json": vegeta.NewJSONDecoder, "csv": vegeta.NewCSVDecoder,
	}
	for _, format := range VegetaFormats {
		t.Run(format, func(t *testing.T) {
			var buf bytes.Buffer
			w, err := NewVegetaWriter(&buf, format, "golden-report")
			if err != nil {
				t.Fatal(err)
			}
			for i := range f.Records {
				if err := w.Add(&f.Records[i]); err != nil {
					t.Fatal(err)
				}
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			for name, dec := range map[string]vegeta.Decoder{
				"its decoder":             decoders[format](bytes.NewReader(buf.Bytes())),
				"vegeta's format sniffer": vegeta.DecoderFor(bytes.NewReader(buf.Bytes())),
			} {
				if dec == nil {
					t.Fatalf("%s: no decoder", name)
				}
				var m vegeta.Metrics
				n, ok := 0, 0
				for {
					var res vegeta.Result
					err := dec.Decode(&res)
					if errors.Is(err, io.EOF) {
						break
					}
					if err != nil {
						t.Fatalf("%s: result %d: %v", name, n, err)
					}
					r := f.Records[n]
					us := r.ResponseUs
					if us == 0 {
						us = r.EndUs
					}
					if want := time.Duration(us) * time.Microsecond; res.Latency != want {
						t.Errorf("%s: result %d latency %v, want %v", name, n, res.Latency, want)
					}
					if !res.Timestamp.Equal(r.Scheduled) || res.Seq != r.Seq || res.Attack != "golden-report" {
						t.Errorf("%s: result %d: %+v for call %+v", name, n, res, r)
					}
					if (r.Outcome == results.OK) != (res.Code == 200 && res.Error == "") {
						t.Errorf("%s: result %d: code %d error %q for outcome %s", name, n, res.Code, res.Error, r.Outcome)
					}
					if r.Outcome == results.OK {
						ok++
					}
					m.Add(&res)
					n++
				}
				m.Close()
				if n != len(f.Records) {
					t.Errorf("%s: decoded %d results, want %d", name, n, len(f.Records))
				}
				if want := float64(ok) / float64(n); m.Success != want {
					t.Errorf("%s: vegeta success %v, want the ok share %v", name, m.Success, want)
				}
			}
		})
	}
}

func TestVegetaResultCodes(t *testing.T) {
	for _, tt := range []struct {
		name      string
		rec       results.Record
		code      uint16
		errPrefix string
	}{
		{"ok over stdio", results.Record{Outcome: results.OK, ResponseUs: 10}, 200, ""},
		{"ok with 202", results.Record{Outcome: results.OK, Status: 202, ResponseUs: 10}, 202, ""},
		{"http error", results.Record{Outcome: results.HTTPError, Status: 500, Message: "boom"}, 500, "http_error: boom"},
		{"throttled by 429", results.Record{Outcome: results.Throttled, Status: 429}, 429, "throttled: HTTP 429"},
		{"throttled by a JSON-RPC code", results.Record{Outcome: results.Throttled, Status: 200, Code: ptr(int64(-32029))}, 0, "throttled: code -32029"},
		{"tool error", results.Record{Outcome: results.ToolError, Status: 200, Message: "bad input"}, 0, "tool_error: bad input"},
		{"transport error", results.Record{Outcome: results.TransportError, Error: "connection refused"}, 0, "transport_error: connection refused"},
		{"cancelled", results.Record{Outcome: results.Cancelled, CancelReason: "fault:cancel", EndUs: 5}, 0, "cancelled: fault:cancel"},
		{"dropped", results.Record{Outcome: results.Dropped}, 0, "dropped"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := VegetaResult(&tt.rec, "a")
			if res.Code != tt.code || res.Error != tt.errPrefix {
				t.Errorf("code %d error %q; want %d %q", res.Code, res.Error, tt.code, tt.errPrefix)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

func TestVegetaFormatFor(t *testing.T) {
	for path, want := range map[string]string{"r.json": "json", "r.CSV": "csv", "r.gob": "gob", "r.bin": "gob", "r": "gob", "-": "gob"} {
		if got := VegetaFormatFor(path); got != want {
			t.Errorf("VegetaFormatFor(%q) = %q, want %q", path, got, want)
		}
	}
	if _, err := NewVegetaWriter(io.Discard, "xml", ""); err == nil {
		t.Error("NewVegetaWriter accepted the format xml")
	}
}
