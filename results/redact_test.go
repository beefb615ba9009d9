package results

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Every line passes through the Redact filter, plain and compressed.
func TestWriterRedact(t *testing.T) {
	for _, name := range []string{"r.jsonl", "r.jsonl.gz"} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), name)
			w, err := Create(path, time.Hour)
			if err != nil {
				t.Fatal(err)
			}
			must := func(err error) {
				t.Helper()
				if err != nil {
					t.Fatal(err)
				}
			}
			w.Redact(func(line []byte) []byte { return bytes.ReplaceAll(line, []byte("s3cret"), []byte("[redacted]")) })
			must(w.Write(&Header{Type: TypeHeader, Target: "http://u:s3cret@h/mcp", Config: []byte(`{"h":"s3cret"}`)}))
			must(w.Write(&Record{Type: TypeCall, Seq: 1, Outcome: TransportError, Error: "connect: s3cret refused"}))
			must(w.Close())
			f, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			if f.Header.Target != "http://u:[redacted]@h/mcp" || string(f.Header.Config) != `{"h":"[redacted]"}` {
				t.Errorf("header: target %q, config %s", f.Header.Target, f.Header.Config)
			}
			if len(f.Records) != 1 || !strings.Contains(f.Records[0].Error, "[redacted]") {
				t.Errorf("records: %+v", f.Records)
			}
			if name == "r.jsonl" {
				raw, _ := os.ReadFile(path)
				if bytes.Contains(raw, []byte("s3cret")) {
					t.Errorf("the file holds the secret:\n%s", raw)
				}
			}
		})
	}
}
