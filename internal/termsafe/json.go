package termsafe

import (
	"fmt"
	"unicode/utf8"
)

// JSON returns the JSON text b with what Escape would escape and JSON
// leaves raw written as JSON escapes: DEL and the C1 controls as \u007f
// and \u0080–\u009f (a JSON encoder escapes the C0 controls already),
// and a byte that is not UTF-8 as \ufffd, the character a JSON decoder
// reads it as. Such characters can stand only inside strings, where the
// escape means the same, so the JSON decodes to the same values and can
// be printed on a terminal. b is returned as is when it holds none.
func JSON(b []byte) []byte {
	var out []byte
	last := 0
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if !(r == utf8.RuneError && size == 1) && (r < 0x7f || r > 0x9f) {
			i += size
			continue
		}
		out = append(out, b[last:i]...)
		if r == utf8.RuneError {
			out = append(out, `\ufffd`...)
		} else {
			out = fmt.Appendf(out, `\u%04x`, r)
		}
		i += size
		last = i
	}
	if out == nil {
		return b
	}
	return append(out, b[last:]...)
}
