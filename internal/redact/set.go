// Package redact keeps secrets out of everything mcpchaos writes. A Set
// holds the secret values of a run (header values, stdio env values, values
// that came from ${VAR}, URL passwords and secret-looking query parameters:
// package scenarios collects them while decoding); String, Bytes and JSON
// replace every occurrence of a value with Mask, and a Writer does it to a
// stream, one line at a time. URL masks the credentials of a URL by
// position (key redaction), whatever their length, and AddURL makes a set
// replace a known URL by its masked form wherever it appears whole.
//
// A value is matched in the forms an output may hold it in: as is,
// JSON-escaped (with and without HTML escaping), Go-quoted (%q), URL-escaped
// (query and path), HTML-escaped, and the JSON escape of each of those. A
// value shorter than MinLen bytes, or one of only digits shorter than
// MinDigits, is not value-redacted (it would mask every such word or number
// in the output); only key redaction (URL, and the scenario echo that masks
// every header and env value) hides it.
//
// The package uses the standard library only.
package redact

import (
	"bytes"
	"encoding/json"
	"html"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Mask is what replaces a secret.
const Mask = "[redacted]"

// MinLen is the length in bytes below which a value is not value-redacted.
const MinLen = 4

// MinDigits is the length below which a value made only of ASCII digits
// is not value-redacted: ports, counts and timeouts are common environment
// values and would mask the numbers of a report.
const MinDigits = 8

// Set is a set of secret values. The zero value is not usable; a nil *Set
// is an empty set (it redacts nothing and ignores Add). It is safe for
// concurrent use.
type Set struct {
	mu     sync.RWMutex
	values map[string]bool
	urls   map[string]bool
	forms  []string // every form of every value and URL, longest first
	fbytes [][]byte // forms as bytes, for present
	r      *strings.Replacer
}

// New returns a set holding values (see Add).
func New(values ...string) *Set {
	s := &Set{values: map[string]bool{}, urls: map[string]bool{}}
	s.Add(values...)
	return s
}

// Redactable reports whether v is long enough to be value-redacted (see
// MinLen and MinDigits).
func Redactable(v string) bool {
	if len(v) < MinLen {
		return false
	}
	for i := 0; i < len(v); i++ {
		if v[i] < '0' || v[i] > '9' {
			return true
		}
	}
	return len(v) >= MinDigits
}

// Add adds values to the set. Values that are not Redactable are ignored.
func (s *Set) Add(values ...string) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	changed := false
	for _, v := range values {
		if Redactable(v) && !s.values[v] {
			s.values[v] = true
			changed = true
		}
	}
	if changed {
		s.rebuild()
	}
}

// AddURL adds the secrets of each string that holds a URL (URLSecrets),
// and the URL itself: wherever it appears whole, it is replaced by URL(raw),
// so its credentials are masked whatever their length. A string without
// URL secrets adds nothing.
func (s *Set) AddURL(raws ...string) {
	if s == nil {
		return
	}
	var values []string
	s.mu.Lock()
	changed := false
	for _, raw := range raws {
		if URL(raw) == raw {
			continue
		}
		values = append(values, URLSecrets(raw)...)
		if !s.urls[raw] {
			s.urls[raw] = true
			changed = true
		}
	}
	if changed {
		s.rebuild()
	}
	s.mu.Unlock()
	s.Add(values...)
}

// rebuild makes the replacer from the values and URLs; s.mu is held.
func (s *Set) rebuild() {
	pairs := map[string]string{}
	for v := range s.values {
		for _, f := range formsOf(v) {
			pairs[f] = Mask
		}
	}
	for raw := range s.urls {
		masked := URL(raw)
		for _, enc := range encodings {
			if _, taken := pairs[enc(raw)]; !taken {
				pairs[enc(raw)] = enc(masked)
			}
		}
	}
	// A new slice: a snapshot taken before may still be read.
	s.forms = make([]string, 0, len(pairs))
	for f := range pairs {
		if f != "" {
			s.forms = append(s.forms, f)
		}
	}
	// Longest first: strings.Replacer tries its pairs in argument order,
	// so at one position the longest form wins. Ties in byte order, so the
	// result does not depend on map order.
	slices.SortFunc(s.forms, func(a, b string) int {
		if len(a) != len(b) {
			return len(b) - len(a)
		}
		return strings.Compare(a, b)
	})
	args := make([]string, 0, 2*len(s.forms))
	s.fbytes = make([][]byte, 0, len(s.forms))
	for _, f := range s.forms {
		args = append(args, f, pairs[f])
		s.fbytes = append(s.fbytes, []byte(f))
	}
	s.r = strings.NewReplacer(args...)
}

// Merge adds the values and URLs of o to s.
func (s *Set) Merge(o *Set) {
	if o == nil || o == s {
		return
	}
	o.mu.RLock()
	urls := make([]string, 0, len(o.urls))
	for u := range o.urls {
		urls = append(urls, u)
	}
	o.mu.RUnlock()
	s.Add(o.Values()...)
	s.AddURL(urls...)
}

// Values returns the values of the set, sorted.
func (s *Set) Values() []string {
	if s == nil {
		return nil
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]string, 0, len(s.values))
	for v := range s.values {
		out = append(out, v)
	}
	slices.Sort(out)
	return out
}

// Len returns how many values the set holds.
func (s *Set) Len() int {
	if s == nil {
		return 0
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.values)
}

// Empty reports whether the set holds no value and no URL.
func (s *Set) Empty() bool {
	if s == nil {
		return true
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.values) == 0 && len(s.urls) == 0
}

// snapshot returns the replacer and the forms (nil when the set is empty).
func (s *Set) snapshot() (*strings.Replacer, []string) {
	if s == nil {
		return nil, nil
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.r, s.forms
}

// present reports whether b holds a form of a value or URL: a scan per
// form, without allocating (strings.Replacer's Replace allocates on every
// call, and most lines of an output hold no secret).
func (s *Set) present(b []byte) bool {
	if s == nil {
		return false
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, f := range s.fbytes {
		if bytes.Contains(b, f) {
			return true
		}
	}
	return false
}

// String returns v with every form of every value replaced by Mask.
func (s *Set) String(v string) string {
	r, _ := s.snapshot()
	if r == nil {
		return v
	}
	return r.Replace(v)
}

// Bytes is String for bytes. It returns b itself when nothing changed.
func (s *Set) Bytes(b []byte) []byte {
	r, _ := s.snapshot()
	if r == nil || !s.present(b) {
		return b
	}
	in := string(b)
	if out := r.Replace(in); out != in {
		return []byte(out)
	}
	return b
}

// encodings are the ways an output may write a value: as is, JSON-escaped
// (with and without HTML escaping), Go-quoted, URL-escaped, HTML-escaped,
// and the JSON escapes and Go quoting of each of those.
var encodings = func() []func(string) string {
	jsonHTML := func(v string) string { return jsonEscape(v, true) }
	jsonPlain := func(v string) string { return jsonEscape(v, false) }
	base := []func(string) string{func(v string) string { return v }, jsonHTML, jsonPlain, goQuote,
		url.QueryEscape, url.PathEscape, html.EscapeString}
	out := slices.Clone(base)
	for _, b := range base {
		for _, outer := range []func(string) string{jsonHTML, jsonPlain, goQuote} {
			out = append(out, func(v string) string { return outer(b(v)) })
		}
	}
	return out
}()

// formsOf returns the forms in which v may appear in an output.
func formsOf(v string) []string {
	out := make([]string, len(encodings))
	for i, enc := range encodings {
		out[i] = enc(v)
	}
	return out
}

// jsonEscape returns v as it stands inside a JSON string literal.
func jsonEscape(v string, escapeHTML bool) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(escapeHTML)
	_ = enc.Encode(v) // a string always encodes
	out := strings.TrimSuffix(b.String(), "\n")
	return out[1 : len(out)-1]
}

// goQuote returns v as it stands inside a Go-quoted (%q) string.
func goQuote(v string) string {
	q := strconv.Quote(v)
	return q[1 : len(q)-1]
}
