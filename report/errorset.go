package report

import (
	"slices"
	"strconv"
	"strings"

	"github.com/mcpchaos/mcpchaos/results"
)

// The error set is bounded: messages are normalised from their first
// errorMsgMax bytes, at most errorKindsMax distinct messages are counted
// (later new ones count as other), and the summary keeps the errorTop most
// frequent.
const (
	errorMsgMax   = 200
	errorKindsMax = 1000
	errorTop      = 10
)

// errorSet counts failed calls by normalised message, like vegeta's error
// set. The scratch buffer is reused, so a message seen before costs no
// allocation.
type errorSet struct {
	total   int
	other   int             // calls whose message was new after errorKindsMax
	byMsg   map[string]*int // pointers: an increment is a lookup, which does not allocate
	scratch []byte
}

// failed reports whether a call's outcome is a failure the error set
// counts: results.OutcomeTable says (every outcome but ok, the ones our
// own faults caused and our own process's limits).
func failed(outcome string) bool { return results.IsFailure(outcome) }

// add counts one record if it failed.
func (e *errorSet) add(r *results.Record) {
	if !failed(r.Outcome) {
		return
	}
	e.total++
	b := append(e.scratch[:0], r.Outcome...)
	if r.Status != 0 && (r.Outcome == results.HTTPError || r.Outcome == results.Throttled) {
		b = append(b, ": HTTP "...)
		b = strconv.AppendInt(b, int64(r.Status), 10)
	}
	msg := r.Error
	if msg == "" {
		msg = r.Message
	}
	if msg != "" {
		b = append(b, ": "...)
		b = appendNormalised(b, msg[:min(len(msg), errorMsgMax)])
	}
	e.scratch = b
	if n := e.byMsg[string(b)]; n != nil {
		*n++
		return
	}
	if len(e.byMsg) >= errorKindsMax {
		e.other++
		return
	}
	if e.byMsg == nil {
		e.byMsg = make(map[string]*int)
	}
	one := 1
	e.byMsg[string(b)] = &one
}

// summary returns the most frequent messages (ties by message) and the
// count of the rest.
func (e *errorSet) summary() Errors {
	out := Errors{Total: e.total, Top: []ErrorCount{}}
	for msg, n := range e.byMsg {
		out.Top = append(out.Top, ErrorCount{Message: msg, Count: *n})
	}
	slices.SortFunc(out.Top, func(a, b ErrorCount) int {
		if a.Count != b.Count {
			return b.Count - a.Count
		}
		return strings.Compare(a.Message, b.Message)
	})
	out.Top = out.Top[:min(len(out.Top), errorTop)]
	out.Other = e.total
	for _, t := range out.Top {
		out.Other -= t.Count
	}
	return out
}

// appendNormalised appends msg with the parts that differ from call to
// call replaced, so one error does not split into many:
//
//   - a UUID becomes "<uuid>", and a word of 8 or more hex digits with both
//     a digit and a letter (an id, a hash) becomes "<hex>";
//   - any other run of decimal digits becomes "N" (ids, ports, addresses,
//     sizes, times: "127.0.0.1:8080" becomes "N.N.N.N:N"), except a number
//     that stands alone and says what kind of error it is: 100..599 (an
//     HTTP status) and a negative number (a JSON-RPC error code);
//   - digits inside a word ("utf8", "http2", "v1") are left alone.
func appendNormalised(b []byte, msg string) []byte {
	for i := 0; i < len(msg); {
		c := msg[i]
		wordStart := i == 0 || !isWord(msg[i-1])
		if wordStart && isUUID(msg[i:]) {
			b = append(b, "<uuid>"...)
			i += len("01234567-89ab-cdef-0123-456789abcdef")
			continue
		}
		if !wordStart || !isWord(c) {
			b = append(b, c)
			i++
			continue
		}
		j, digits, letters, hex := i, false, false, true
		for j < len(msg) && isWord(msg[j]) {
			digits = digits || isDigit(msg[j])
			letters = letters || !isDigit(msg[j])
			hex = hex && isHex(msg[j])
			j++
		}
		switch {
		case hex && digits && letters && j-i >= 8:
			b = append(b, "<hex>"...)
		case !letters && !keepNumber(msg, i, j):
			b = append(b, 'N')
		case digits && letters:
			// A word with digits: a unit after a number (250ms) is a time;
			// anything else (utf8, http2) is a name.
			k := i
			for k < j && isDigit(msg[k]) {
				k++
			}
			if k > i && !keepNumber(msg, i, k) {
				b = append(b, 'N')
				b = append(b, msg[k:j]...)
			} else {
				b = append(b, msg[i:j]...)
			}
		default:
			b = append(b, msg[i:j]...)
		}
		i = j
	}
	return b
}

// isUUID reports whether s starts with a UUID in its text form.
func isUUID(s string) bool {
	const form = "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx"
	if len(s) < len(form) || len(s) > len(form) && isWord(s[len(form)]) {
		return false
	}
	for i := range len(form) {
		if form[i] == '-' && s[i] != '-' || form[i] == 'x' && !isHex(s[i]) {
			return false
		}
	}
	return true
}

// keepNumber reports whether the digits msg[i:j] are an HTTP status or a
// negative error code standing alone (not part of an address, a decimal
// or a time).
func keepNumber(msg string, i, j int) bool {
	if i > 0 && (msg[i-1] == '.' || msg[i-1] == ':') ||
		j+1 < len(msg) && (msg[j] == '.' || msg[j] == ':') && isDigit(msg[j+1]) ||
		j < len(msg) && isLetter(msg[j]) { // a unit: 250ms, 2s
		return false
	}
	if i > 0 && msg[i-1] == '-' && (i == 1 || !isWord(msg[i-2])) {
		return true
	}
	n, err := strconv.Atoi(msg[i:j])
	return err == nil && j-i == 3 && n >= 100 && n <= 599
}

func isDigit(c byte) bool  { return '0' <= c && c <= '9' }
func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_' }
func isWord(c byte) bool   { return isDigit(c) || isLetter(c) }
func isHex(c byte) bool    { return isDigit(c) || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }
