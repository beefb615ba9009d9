package scenarios

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ByteSize is a number of bytes, written as an integer ("1000000") or with
// a unit: B, KB, MB, GB (powers of 1000) or KiB, MiB, GiB (powers of 1024).
type ByteSize int64

// byteUnits is the immutable table of size units, longest suffixes first.
var byteUnits = [...]struct {
	suffix string
	mult   int64
}{
	{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30},
	{"KB", 1000}, {"MB", 1000 * 1000}, {"GB", 1000 * 1000 * 1000},
	{"B", 1},
}

// ParseByteSize parses a byte size such as "2MiB", "512KiB" or "1000000".
// Fractions of a unit are allowed ("1.5KiB") and rounded down.
func ParseByteSize(s string) (ByteSize, error) {
	t := strings.TrimSpace(s)
	num, mult := t, int64(1)
	for _, u := range byteUnits {
		if strings.HasSuffix(t, u.suffix) {
			num, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.mult
			break
		}
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("invalid size %q: want bytes such as 1000000, 512KiB or 2MiB", s)
	}
	v := f * float64(mult)
	if v < 0 {
		return 0, fmt.Errorf("invalid size %q: must not be negative", s)
	}
	if v > 1<<40 {
		return 0, fmt.Errorf("invalid size %q: larger than 1TiB", s)
	}
	return ByteSize(v), nil
}

// String formats b with the largest binary unit that divides it exactly
// ("8MiB"), or as plain bytes.
func (b ByteSize) String() string {
	switch {
	case b != 0 && b%(1<<30) == 0:
		return strconv.FormatInt(int64(b>>30), 10) + "GiB"
	case b != 0 && b%(1<<20) == 0:
		return strconv.FormatInt(int64(b>>20), 10) + "MiB"
	case b != 0 && b%(1<<10) == 0:
		return strconv.FormatInt(int64(b>>10), 10) + "KiB"
	}
	return strconv.FormatInt(int64(b), 10)
}

// MarshalText implements encoding.TextMarshaler.
func (b ByteSize) MarshalText() ([]byte, error) { return []byte(b.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler.
func (b *ByteSize) UnmarshalText(text []byte) error {
	v, err := ParseByteSize(string(text))
	if err != nil {
		return err
	}
	*b = v
	return nil
}
