package summary

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/mcpchaos/mcpchaos/internal/termsafe"
)

// JSON writes the summary as indented JSON, DEL and C1 controls escaped
// as well (termsafe.JSON): it is often printed on a terminal.
func (s *Summary) JSON(w io.Writer) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false) // checks hold < and >
	if err := enc.Encode(s); err != nil {
		return fmt.Errorf("write summary json: %w", err)
	}
	if _, err := w.Write(termsafe.JSON(b.Bytes())); err != nil {
		return fmt.Errorf("write summary json: %w", err)
	}
	return nil
}

// ReadSummary reads a summary written by JSON (or kept in a results
// file's trailer). Its checks can be evaluated again, but pNN() only at
// the percentiles the JSON holds: p50, p90, p99, p999 and max (p100).
func ReadSummary(r io.Reader) (*Summary, error) {
	var s Summary
	dec := json.NewDecoder(r)
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("read summary json: %w", err)
	}
	return &s, nil
}
