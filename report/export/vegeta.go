package export

import (
	"bufio"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"

	"github.com/mcpchaos/mcpchaos/client/vocab"
	"github.com/mcpchaos/mcpchaos/results"
)

// VegetaFormats are the encodings of vegeta results: gob (vegeta's own
// default), json and csv.
var VegetaFormats = []string{"gob", "json", "csv"}

// VegetaFormatFor returns the format a file name implies: .json, .csv,
// anything else (.gob, .bin, ...) gob.
func VegetaFormatFor(path string) string {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".json":
		return "json"
	case ".csv":
		return "csv"
	}
	return "gob"
}

// VegetaWriter writes one vegeta Result per call with vegeta's own
// encoders, so `vegeta report` and `vegeta plot` read our runs.
type VegetaWriter struct {
	bw     *bufio.Writer
	enc    vegeta.Encoder
	attack string
	res    vegeta.Result
	// Redact, when set, masks secrets in each result's strings (error and
	// attack name) before it is encoded.
	Redact func(string) string
}

// NewVegetaWriter encodes results in format (one of VegetaFormats) to w;
// attack names the run (the scenario), as vegeta's attack name does.
func NewVegetaWriter(w io.Writer, format, attack string) (*VegetaWriter, error) {
	v := &VegetaWriter{bw: bufio.NewWriterSize(w, 64<<10), attack: attack}
	switch format {
	case "gob":
		v.enc = vegeta.NewEncoder(v.bw)
	case "json":
		v.enc = vegeta.NewJSONEncoder(v.bw)
	case "csv":
		v.enc = vegeta.NewCSVEncoder(v.bw)
	default:
		return nil, fmt.Errorf("vegeta format %q: want one of %s", format, strings.Join(VegetaFormats, ", "))
	}
	return v, nil
}

// SetAttack sets the attack name of the results that follow.
func (v *VegetaWriter) SetAttack(name string) { v.attack = name }

// Add encodes one call.
func (v *VegetaWriter) Add(r *results.Record) error {
	v.res = VegetaResult(r, v.attack)
	if v.Redact != nil {
		v.res.Error, v.res.Attack = v.Redact(v.res.Error), v.Redact(v.res.Attack)
	}
	if err := v.enc.Encode(&v.res); err != nil {
		return fmt.Errorf("encode vegeta result of call %d: %w", r.Seq, err)
	}
	return nil
}

// Close flushes what was encoded (it does not close the underlying
// writer).
func (v *VegetaWriter) Close() error {
	if err := v.bw.Flush(); err != nil {
		return fmt.Errorf("write vegeta results: %w", err)
	}
	return nil
}

// VegetaResult maps a call to a vegeta Result (docs/reports.md#vegeta):
// Timestamp is the call's scheduled time and Latency the call latency
// (response − scheduled, free of coordinated omission), or the time to
// its end when no response came. Code is 200 for ok (the HTTP status when
// it is another 2xx), the HTTP status of a call that got a non-2xx one
// (http_error, throttled by 429 or 503), and 0 for every other outcome;
// Error is "OUTCOME: detail" for every outcome but ok, so vegeta's success
// ratio is the share of ok calls. BytesIn and BytesOut are 0: the results
// file does not record sizes. Method is "tools/call" and URL "tool:NAME".
func VegetaResult(r *results.Record, attack string) vegeta.Result {
	res := vegeta.Result{Attack: attack, Seq: r.Seq, Timestamp: r.Scheduled, Method: vocab.MethodToolsCall, URL: "tool:" + r.Tool}
	us := r.ResponseUs
	if us <= 0 {
		us = r.EndUs
	}
	res.Latency = time.Duration(max(us, 0)) * time.Microsecond
	switch {
	case r.Outcome == results.OK && r.Status >= 200 && r.Status < 300:
		res.Code = uint16(r.Status)
	case r.Outcome == results.OK:
		res.Code = 200
	case r.Status >= 100 && r.Status <= 999 && (r.Status < 200 || r.Status >= 300):
		res.Code = uint16(r.Status)
	}
	if r.Outcome != results.OK {
		res.Error = r.Outcome
		if d := vegetaDetail(r); d != "" {
			res.Error += ": " + d
		}
	}
	return res
}

// vegetaDetail is what a failed call says about itself.
func vegetaDetail(r *results.Record) string {
	switch {
	case r.Error != "":
		return r.Error
	case r.Message != "":
		return r.Message
	case r.Code != nil:
		return fmt.Sprintf("code %d", *r.Code)
	case r.Status != 0:
		return fmt.Sprintf("HTTP %d", r.Status)
	case r.CancelReason != "":
		return string(r.CancelReason)
	}
	return ""
}
