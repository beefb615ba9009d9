package proxy

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"time"
)

// maxRecordedID bounds a request id kept in a record or an index: a
// longer one is kept as "sha256:HEX" of its compact form, so a hostile
// client's 16 MiB id costs no more than a short one.
const maxRecordedID = 256

func boundID(id json.RawMessage) json.RawMessage {
	if len(id) <= maxRecordedID {
		return id
	}
	b, _ := json.Marshal("sha256:" + digest(compactJSON(id)))
	return b
}

// digest is s's SHA-256 in hex: a key of fixed size for a value of any.
func digest(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// compactJSON is raw without insignificant white space, so equal values
// written differently compare equal; raw itself when it is not JSON.
func compactJSON(raw json.RawMessage) string {
	var b strings.Builder
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return string(raw)
	}
	out, _ := json.Marshal(v) // maps marshal with sorted keys
	b.Write(out)
	return b.String()
}
