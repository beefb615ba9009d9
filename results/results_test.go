package results

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

var t0 = time.Date(2026, 7, 28, 12, 0, 0, 123456789, time.UTC)

func testHeader() Header {
	return Header{Type: TypeHeader, Tool: "mcpchaos", Version: "test", Scenario: "unit", File: "unit.yaml",
		Seed: 42, Era: "2026-07-28", Transport: "http", Target: "http://127.0.0.1:1/mcp", Server: "t 1",
		Started: t0, Config: json.RawMessage(`{"name":"unit","seed":42}`)}
}

// testRecord returns a record with every kind of member set, different
// for each i.
func testRecord(i int) Record {
	code := int64(-32000 - i)
	ra := int64(1000 * i)
	r := Record{Type: TypeCall, ID: int64(i + 1), Seq: uint64(i), Tool: "slow_task", Process: 1 + i%3,
		Scheduled: t0.Add(time.Duration(i) * 10 * time.Millisecond), SentUs: 1, HeadersUs: 200, FirstProgUs: 1000 + int64(i),
		ResponseUs: 5000 + int64(i), EndUs: 5001 + int64(i), Outcome: Outcomes[i%len(Outcomes)], Status: 200,
		Message:    fmt.Sprintf("message %d with \"quotes\" and <html>", i),
		Progress:   &Progress{Count: 3, Values: []float64{1, 2, 3}, Last: 3, Total: 10, MaxGapUs: 100, MaxRateHz: 3, Stalled: i%2 == 0},
		Violations: Counts{"non_monotonic": i}, LateResponses: i % 2, Policies: map[string]string{"fixed": "ok"}}
	switch i % 4 {
	case 1:
		r.Code, r.RetryAfterMs, r.ThrottleKind = &code, &ra, "http_429"
	case 2:
		r.Faults = []Fault{{Kind: "cancel", ScheduledUs: 100, ActualUs: 150, ErrorUs: 50, Detail: "d"}, {Kind: "disconnect", Skipped: true}}
		r.CancelUs, r.CancelReason = 3000, "fault:cancel"
	case 3:
		r.DeadlineUs, r.TimeoutErrUs, r.CapWithProgress, r.Of, r.Attempt, r.Retry = 4000, 12, true, 1, 2, "throttled"
	}
	if i%5 == 0 {
		r.Violations = nil
	}
	return r
}

func testSample(i int) Sample {
	return Sample{Type: TypeSample, T: t0.Add(time.Duration(i) * time.Second), ClientInFlight: i, OfferedRate: 12.5,
		Probes: map[string]float64{"inflight": float64(i)}}
}

// writeFile writes a header, n records with a sample after every tenth,
// and (with trailer) a trailer, and returns what it wrote.
func writeFile(t *testing.T, path string, n int, trailer bool) *File {
	t.Helper()
	w, err := Create(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := &File{Header: testHeader()}
	if err := w.Write(&want.Header); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		r := testRecord(i)
		if err := w.Write(&r); err != nil {
			t.Fatal(err)
		}
		want.Records = append(want.Records, r)
		if i%10 == 9 {
			s := testSample(i)
			if err := w.Write(&s); err != nil {
				t.Fatal(err)
			}
			want.Samples = append(want.Samples, s)
		}
	}
	if trailer {
		want.Trailer = &Trailer{Type: TypeTrailer, Ended: t0.Add(time.Minute), Interrupted: true, Summary: json.RawMessage(`{"pass":true}`)}
		if err := w.Write(want.Trailer); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return want
}

func TestRoundTrip(t *testing.T) {
	for _, tt := range []struct {
		name    string
		file    string
		n       int
		trailer bool
	}{
		{"plain", "r.jsonl", 25, true},
		{"gzip", "r.jsonl.gz", 25, true},
		{"no trailer", "r.jsonl", 3, false},
		{"header only", "r.jsonl.gz", 0, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), tt.file)
			want := writeFile(t, path, tt.n, tt.trailer)
			raw, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if gz := bytes.HasPrefix(raw, []byte{0x1f, 0x8b}); gz != strings.HasSuffix(tt.file, ".gz") {
				t.Errorf("file starts with gzip magic: %v, want %v", gz, !gz)
			}
			got, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			if got.Torn {
				t.Error("Torn = true for a complete file")
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("read back:\n%+v\nwant:\n%+v", got, want)
			}
		})
	}
}

// lines returns the plain results file's lines.
func plainLines(t *testing.T, n int) [][]byte {
	t.Helper()
	path := filepath.Join(t.TempDir(), "r.jsonl")
	writeFile(t, path, n, false)
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.SplitAfter(bytes.TrimSuffix(raw, []byte("\n")), []byte("\n"))
}

func TestReadErrors(t *testing.T) {
	lines := plainLines(t, 3) // 1 header, 3 records
	join := func(ls ...[]byte) string { return string(bytes.Join(ls, nil)) }
	for _, tt := range []struct {
		name string
		in   string
		want string // in the error
	}{
		{"bad JSON in the middle", join(lines[0], lines[1], []byte("{\"type\":\"call\",\"seq\":\n"), lines[2], lines[3]), "line 3:"},
		{"garbage second line", join(lines[0], []byte("not json at all\n"), lines[1]), "line 2:"},
		{"unknown type in the middle", join(lines[0], lines[1], []byte(`{"type":"bogus"}`+"\n"), lines[2]), `line 3: unknown line type "bogus"`},
		{"wrong member type in the middle", join(lines[0], []byte(`{"type":"call","seq":"x"}`+"\n"), lines[1]), "line 2:"},
		{"bad line after blank lines", join(lines[0], []byte("\n\n"), []byte("{oops}\n"), lines[1]), "line 4:"},
		{"no header", join(lines[1], lines[2], lines[3]), "no header"},
		{"header not decodable first", join([]byte("{\n"), lines[0], lines[1]), "line 1:"},
		{"empty", "", "no header"},
		{"only blank lines", "\n \n\t\n", "no header"},
		{"torn header only", string(lines[0][:20]), "no header"},
		// The writer never writes a line this long: damage, not a torn end.
		{"a line over 16 MiB in the middle", join(lines[0], lines[1], []byte(`{"type":"call","message":"`+strings.Repeat("x", maxLine)+"\"}\n"), lines[2]),
			"line 3: line longer than 16777216 bytes"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f, err := Read(strings.NewReader(tt.in))
			if err == nil {
				t.Fatalf("no error; read %+v", f)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not contain %q", err, tt.want)
			}
		})
	}
}

func TestOpenErrorsNameTheFile(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.jsonl")
	if err := os.WriteFile(bad, []byte(`{"type":"header"}`+"\n{x\n{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	notGz := filepath.Join(dir, "plain.jsonl.gz")
	if err := os.WriteFile(notGz, []byte(`{"type":"header"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ path, want string }{
		{bad, bad + ": line 2:"},
		{notGz, notGz},
		{filepath.Join(dir, "missing.jsonl"), "missing.jsonl"},
	} {
		if _, err := Open(tt.path); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Open(%s) = %v, want an error containing %q", filepath.Base(tt.path), err, tt.want)
		}
	}
}

func TestUs(t *testing.T) {
	for _, tt := range []struct {
		d    time.Duration
		want int64
	}{
		{0, 1}, {-time.Second, 1}, {999 * time.Nanosecond, 1}, {time.Microsecond, 1}, {1500 * time.Microsecond, 1500}, {2 * time.Second, 2e6},
	} {
		if got := Us(tt.d); got != tt.want {
			t.Errorf("Us(%s) = %d, want %d", tt.d, got, tt.want)
		}
	}
}

func FuzzRead(f *testing.F) {
	var buf bytes.Buffer
	h := testHeader()
	b, _ := json.Marshal(&h)
	buf.Write(b)
	buf.WriteByte('\n')
	for i := range 3 {
		r := testRecord(i)
		b, _ := json.Marshal(&r)
		buf.Write(b)
		buf.WriteByte('\n')
	}
	f.Add(buf.Bytes())
	f.Add(buf.Bytes()[:buf.Len()/2])
	f.Add([]byte(`{"type":"header"}` + "\n" + `{"type":"trailer","ended":"x"}`))
	f.Add([]byte(`{"type":"header"}` + "\n" + `{"type":"sample","probes":{"a":1}}` + "\n{"))
	f.Add([]byte("\n\n\n"))
	f.Add([]byte(`{"type":"header","shard":{"index":0,"count":2147483647}}` + "\n"))
	f.Add([]byte(`{"type":"header","shard":{"index":5,"count":2}}` + "\n" + `{"type":"call","seq":5}` + "\n"))
	f.Add([]byte(`{"type":"header","started":"2026-12-03T12:00:00Z","shard":{"index":1,"count":3,"start_at":"2026-12-03T12:00:00Z"}}` + "\n"))
	f.Add([]byte{0x1f, 0x8b, 0, 0})
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(buf.Bytes())
	zw.Close()
	f.Add(gz.Bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Read(bytes.NewReader(data))
		if err != nil {
			if file != nil {
				t.Fatalf("Read returned both a file and the error %v", err)
			}
			return
		}
		if file.Header.Type != TypeHeader {
			t.Fatalf("Read succeeded without a header: %+v", file.Header)
		}
		if sh := file.Header.Shard; sh != nil && (sh.Count < 1 || sh.Count > MaxShards || sh.Index < 0 || sh.Index >= sh.Count) {
			t.Fatalf("Read accepted an impossible shard %d/%d", sh.Index, sh.Count)
		}
		for _, r := range file.Records {
			if r.Type != TypeCall {
				t.Fatalf("record of type %q", r.Type)
			}
		}
		// Reading through gzip must not panic either.
		var z bytes.Buffer
		zw := gzip.NewWriter(&z)
		zw.Write(data)
		zw.Close()
		if zr, err := gzip.NewReader(bytes.NewReader(z.Bytes()[:z.Len()*2/3])); err == nil {
			_, _ = Read(zr)
		}
	})
}
