package export

import (
	"bufio"
	"fmt"
	"io"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/mcpchaos/mcpchaos/report"
)

// WriteHlog writes the run as an HdrHistogram interval log (format 1.3,
// hdrhistogram-go's HistogramLogWriter): one interval per wall-clock
// second per histogram that recorded any value in the run, tagged with
// the histogram's name ("Tag=call,..."), in second order. Values are
// microseconds; the log's Interval_Max column is the library's value/10⁶,
// so seconds. Timestamps are relative to the #[BaseTime] line, the start
// of the first second (the same wall clock as the results file).
func WriteHlog(w io.Writer, a *report.Aggregator) error {
	bw := bufio.NewWriter(w)
	lw := hdrhistogram.NewHistogramLogWriter(bw)
	secs := a.Seconds()
	names := a.HistogramsWithValues()
	if err := lw.OutputLogFormatVersion(); err != nil {
		return fmt.Errorf("write hlog: %w", err)
	}
	if len(secs) > 0 {
		base := secs[0].Start.UnixMilli()
		lw.SetBaseTime(base)
		_ = lw.OutputStartTime(base)
		_ = lw.OutputBaseTime(base)
	}
	_ = lw.OutputComment("[values in microseconds; Interval_Max in seconds; one interval per second per histogram, tagged]")
	_ = lw.OutputLegend()
	for _, s := range secs {
		start := s.Start.UnixMilli()
		for _, name := range names {
			h := s.Histogram(name)
			h.SetTag(name)
			h.SetStartTimeMs(start)
			h.SetEndTimeMs(start + 1000)
			if err := lw.OutputIntervalHistogram(h); err != nil {
				return fmt.Errorf("write hlog interval %s at %s: %w", name, s.Start.Format("15:04:05"), err)
			}
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write hlog: %w", err)
	}
	return nil
}
