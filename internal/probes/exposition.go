package probes

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"slices"
	"strings"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// Limits bound one scrape of a metric probe. Zero fields take the defaults.
type Limits struct {
	// MaxBodyBytes bounds the body read (after any gzip decoding); a longer
	// body is an error. Default 16 MiB.
	MaxBodyBytes int64
	// MaxLineBytes bounds one line of the body. Default 1 MiB.
	MaxLineBytes int
	// MaxMatchBytes bounds the lines that mention the metric's name, which
	// are the only ones kept and parsed. Default 1 MiB.
	MaxMatchBytes int
	// MaxOpenMetricsLines and MaxOpenMetricsLineBytes bound those lines
	// when the server answers in OpenMetrics: expfmt decodes it with a
	// general ABNF parser that takes milliseconds a line and grows
	// superlinearly with a line's length (a 4 KiB line of many labels costs
	// seconds and 100 MiB). Defaults 16 lines of at most 512 bytes, which
	// bound a hostile body's decoding to about a second.
	MaxOpenMetricsLines     int
	MaxOpenMetricsLineBytes int
}

// Defaults of Limits.
const (
	DefaultMaxBodyBytes            = 16 << 20
	DefaultMaxLineBytes            = 1 << 20
	DefaultMaxMatchBytes           = 1 << 20
	DefaultMaxOpenMetricsLines     = 16
	DefaultMaxOpenMetricsLineBytes = 512
)

func (l Limits) withDefaults() Limits {
	if l.MaxBodyBytes <= 0 {
		l.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if l.MaxLineBytes <= 0 {
		l.MaxLineBytes = DefaultMaxLineBytes
	}
	if l.MaxMatchBytes <= 0 {
		l.MaxMatchBytes = DefaultMaxMatchBytes
	}
	if l.MaxOpenMetricsLines <= 0 {
		l.MaxOpenMetricsLines = DefaultMaxOpenMetricsLines
	}
	if l.MaxOpenMetricsLineBytes <= 0 {
		l.MaxOpenMetricsLineBytes = DefaultMaxOpenMetricsLineBytes
	}
	return l
}

// labelPair is one label a metric probe selects on.
type labelPair struct{ name, value string }

// exposition is what readExposition found for one metric.
type exposition struct {
	value   float64
	matched int // series whose labels matched
	series  int // series of the metric in all
}

// readExposition reads a Prometheus exposition from r, whose Content-Type
// is contentType, and sums the samples of metric name whose labels include
// all of sel. It is the whole of a scrape after the HTTP exchange, and the
// fuzz target's entry point.
//
// The body is read line by line and never held: a line is kept only when
// it mentions the name (or, for a UTF-8 name, its quoted form), which every
// line that belongs to the metric does. expfmt then parses the kept lines,
// so its memory, several times the input, is bounded by MaxMatchBytes
// rather than by the body. A consequence worth knowing: a series is read
// by its own name, as PromQL reads it, so "x_count" finds the _count
// series of a summary "x" even though the TYPE line says "x".
//
// ctx is checked between metric families; the reading itself is bounded
// by r (an HTTP body stops when its request's context ends).
func readExposition(ctx context.Context, r io.Reader, contentType, name string, sel []labelPair, lim Limits) (exposition, error) {
	lim = lim.withDefaults()
	if name == "" {
		return exposition{}, errors.New("read exposition: empty metric name")
	}
	format := expfmt.ResponseFormat(http.Header{"Content-Type": {contentType}})
	openMetrics := false
	switch format.FormatType() {
	case expfmt.TypeProtoDelim, expfmt.TypeProtoText, expfmt.TypeProtoCompact:
		return exposition{}, fmt.Errorf("read exposition: content type %q is not supported (mcpchaos asks for text/plain)", contentType)
	case expfmt.TypeOpenMetrics:
		openMetrics = true
	}

	kept, lineNos, err := keepLines(r, name, openMetrics, lim)
	if err != nil {
		return exposition{}, err
	}
	// Accept UTF-8 metric names in every format (a superset of the legacy
	// names); for FmtUnknown this still selects the text decoder.
	dec := expfmt.NewDecoder(bytes.NewReader(kept), format.WithEscapingScheme(model.NoEscaping))
	var out exposition
	found := false
	for range len(lineNos) + 2 { // at most one family per kept line, then EOF
		if err := ctx.Err(); err != nil {
			return exposition{}, fmt.Errorf("parse exposition: %w", err)
		}
		var mf dto.MetricFamily
		err := dec.Decode(&mf)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return exposition{}, parseError(err, lineNos)
		}
		if mf.GetName() != name {
			continue
		}
		found = true
		if err := sumFamily(&mf, sel, &out); err != nil {
			return exposition{}, err
		}
	}
	switch {
	case !found:
		return exposition{}, fmt.Errorf("metric %q: %w from the exposition", name, ErrAbsent)
	case out.matched == 0:
		return exposition{}, fmt.Errorf("metric %q: no series with labels %s among its %d: %w", name, formatLabels(sel), out.series, ErrAbsent)
	case math.IsNaN(out.value) || math.IsInf(out.value, 0):
		return exposition{}, fmt.Errorf("metric %q: value %v is not a finite number", name, out.value)
	}
	return out, nil
}

// keepLines streams r and returns the lines (with their newlines) that
// mention name, and for each its line number in the body.
func keepLines(r io.Reader, name string, openMetrics bool, lim Limits) ([]byte, []int32, error) {
	mention := [][]byte{[]byte(name)}
	if q := quoteName(name); q != name {
		mention = append(mention, []byte(q))
	}
	body := &io.LimitedReader{R: r, N: lim.MaxBodyBytes + 1}
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 0, min(64<<10, lim.MaxLineBytes)), lim.MaxLineBytes)
	sc.Split(splitLines)
	var kept []byte
	var lineNos []int32
	n := 1 // the body's line number
	for ; sc.Scan(); n++ {
		line := sc.Bytes()
		keep := openMetrics && bytes.HasPrefix(line, []byte("# EOF"))
		for _, m := range mention {
			keep = keep || bytes.Contains(line, m)
		}
		if !keep {
			continue
		}
		if len(kept)+len(line) > lim.MaxMatchBytes {
			return nil, nil, fmt.Errorf("read exposition: metric %q: the lines that mention it exceed %d bytes", name, lim.MaxMatchBytes)
		}
		if openMetrics && len(lineNos) >= lim.MaxOpenMetricsLines {
			return nil, nil, fmt.Errorf("read exposition: metric %q: more than %d OpenMetrics lines mention it (expfmt decodes OpenMetrics slowly; serve text/plain)", name, lim.MaxOpenMetricsLines)
		}
		if openMetrics && len(line) > lim.MaxOpenMetricsLineBytes {
			return nil, nil, fmt.Errorf("read exposition: OpenMetrics line %d is longer than %d bytes (expfmt decodes OpenMetrics slowly; serve text/plain)", n, lim.MaxOpenMetricsLineBytes)
		}
		// Grow by doubling: append's gentler growth for large slices would
		// allocate five times the final size on the way.
		if cap(kept)-len(kept) < len(line) {
			kept = slices.Grow(kept, max(len(line), len(kept)))
		}
		if cap(lineNos) == len(lineNos) {
			lineNos = slices.Grow(lineNos, max(16, len(lineNos)))
		}
		kept = append(kept, line...)
		lineNos = append(lineNos, int32(n))
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, nil, fmt.Errorf("read exposition: line %d is longer than %d bytes", n, lim.MaxLineBytes)
		}
		return nil, nil, fmt.Errorf("read exposition: %w", err)
	}
	if body.N <= 0 {
		return nil, nil, fmt.Errorf("read exposition: body exceeds %d bytes", lim.MaxBodyBytes)
	}
	return kept, lineNos, nil
}

// splitLines is bufio.ScanLines that keeps every byte, the newline and any
// carriage return included, so the parser sees the lines as they were sent.
func splitLines(data []byte, atEOF bool) (int, []byte, error) {
	if i := bytes.IndexByte(data, '\n'); i >= 0 {
		return i + 1, data[:i+1], nil
	}
	if atEOF && len(data) > 0 {
		return len(data), data, nil
	}
	return 0, nil, nil
}

// quoteName is how a metric name appears inside double quotes (UTF-8 names
// in the text format and OpenMetrics).
func quoteName(name string) string {
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(name)
}

// parseError renumbers an expfmt parse error from kept lines to body lines.
func parseError(err error, lineNos []int32) error {
	var pe expfmt.ParseError
	if errors.As(err, &pe) && pe.Line >= 1 && pe.Line <= len(lineNos) {
		return fmt.Errorf("parse exposition: line %d: %s", lineNos[pe.Line-1], pe.Msg)
	}
	return fmt.Errorf("parse exposition: %w", err)
}

// sumFamily adds the samples of mf whose labels include sel to out.
func sumFamily(mf *dto.MetricFamily, sel []labelPair, out *exposition) error {
	var value func(*dto.Metric) float64
	switch mf.GetType() {
	case dto.MetricType_GAUGE:
		value = func(m *dto.Metric) float64 { return m.GetGauge().GetValue() }
	case dto.MetricType_COUNTER:
		value = func(m *dto.Metric) float64 { return m.GetCounter().GetValue() }
	case dto.MetricType_UNTYPED:
		value = func(m *dto.Metric) float64 { return m.GetUntyped().GetValue() }
	default:
		return fmt.Errorf("metric %q is a %s; a probe reads a gauge, counter or untyped metric (name one of its series, e.g. %q)",
			mf.GetName(), strings.ToLower(mf.GetType().String()), mf.GetName()+"_count")
	}
	for _, m := range mf.GetMetric() {
		out.series++
		if !hasLabels(m, sel) {
			continue
		}
		out.matched++
		out.value += value(m)
	}
	return nil
}

func hasLabels(m *dto.Metric, sel []labelPair) bool {
	for _, want := range sel {
		ok := false
		for _, lp := range m.GetLabel() {
			if lp.GetName() == want.name && lp.GetValue() == want.value {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

// formatLabels renders a selection as {a="1",b="2"}.
func formatLabels(sel []labelPair) string {
	var b strings.Builder
	b.WriteByte('{')
	for i, lp := range sel {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%s=%q", lp.name, lp.value)
	}
	b.WriteByte('}')
	return b.String()
}
