package results

import "time"

// parseUTC parses the times our writer writes, "2006-01-02T15:04:05Z" with
// 0 to 9 fractional digits before the Z, into what time.Time's
// UnmarshalJSON gives for them; ok is false for anything else (another
// zone, a day past the 28th, a field out of range), which the caller
// leaves to UnmarshalJSON. FuzzParseUTC holds the two together.
func parseUTC(b []byte) (t time.Time, ok bool) {
	const n = len("2006-01-02T15:04:05")
	if len(b) < n+1 || b[len(b)-1] != 'Z' || b[4] != '-' || b[7] != '-' || b[10] != 'T' || b[13] != ':' || b[16] != ':' {
		return t, false
	}
	num := func(i, w int) int {
		v := 0
		for _, c := range b[i : i+w] {
			if c < '0' || c > '9' {
				return -1
			}
			v = v*10 + int(c-'0')
		}
		return v
	}
	year, month, day := num(0, 4), num(5, 2), num(8, 2)
	hour, minute, sec := num(11, 2), num(14, 2), num(17, 2)
	if year < 0 || month < 1 || month > 12 || day < 1 || day > 28 || hour < 0 || hour > 23 ||
		minute < 0 || minute > 59 || sec < 0 || sec > 59 {
		return t, false
	}
	nsec := 0
	if frac := b[n : len(b)-1]; len(frac) > 0 {
		digits := len(frac) - 1
		if frac[0] != '.' || digits < 1 || digits > 9 {
			return t, false
		}
		if nsec = num(n+1, digits); nsec < 0 {
			return t, false
		}
		for range 9 - digits {
			nsec *= 10
		}
	}
	return time.Date(year, time.Month(month), day, hour, minute, sec, nsec, time.UTC), true
}
