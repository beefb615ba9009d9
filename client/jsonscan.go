package client

import "github.com/mcpchaos/mcpchaos/internal/jsonscan"

// scanner is the JSON lexer of the receive loop: internal/jsonscan, the one
// lexer the results file's fast decoder shares. It never allocates on the
// paths the receive loop uses, since progress notifications are the hot
// path and encoding/json allocates for every message.
type scanner = jsonscan.Scanner

var errTooDeep = jsonscan.ErrTooDeep

// keyIs compares a raw object key with a plain ASCII name.
func keyIs(raw []byte, escaped bool, name string) bool { return jsonscan.KeyIs(raw, escaped, name) }

// Unquote returns the text of a raw JSON string body as events carry it
// (Event.Message, Result.Text): escapes decoded, no copy kept of raw.
func Unquote(raw []byte) string {
	for _, c := range raw {
		if c == '\\' {
			return unescape(raw)
		}
	}
	return string(raw)
}

// unescape decodes the escapes of a raw JSON string body (it allocates:
// off the hot path).
func unescape(raw []byte) string { return jsonscan.Unescape(raw) }

func parseFloat(raw []byte) (float64, error) { return jsonscan.ParseFloat(raw) }

func parseInt(raw []byte) (int64, error) { return jsonscan.ParseInt(raw) }
