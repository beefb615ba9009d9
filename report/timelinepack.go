package report

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"
)

// The packed form of a timeline chunk (timeline.go), kept for the seconds
// no record has touched for a while. Each of the chunk's three columns
// (scheduled, throttled, ok), in that order, is
//
//	width  one byte: the bits each count takes, 0 to 32
//	base   uvarint: the column's least count
//	counts the 100 counts less base, width bits each, low bits first,
//	       the last byte zero-padded (no bytes when width is 0)
//
// A second of a 300 calls/s soak packs into about 44 bytes (1,200 raw):
// evenly paced scheduled calls are one value (width 0), no throttled calls
// one zero, ok counts of 0 to 7 three bits each. Packing loses nothing:
// unpacking gives back every count, so a late record that lands in a
// packed chunk is counted exactly where it would have been.

const slotColumns = 3

// column returns the count of column col (0 scheduled, 1 throttled, 2 ok).
func (s *slot) column(col int) *int32 {
	switch col {
	case 0:
		return &s.scheduled
	case 1:
		return &s.throttled
	default:
		return &s.ok
	}
}

// packChunk appends the packed form of c to dst.
func packChunk(dst []byte, c *chunk) []byte {
	for col := range slotColumns {
		lo, hi := uint32(math.MaxUint32), uint32(0)
		for i := range c {
			v := uint32(*c[i].column(col))
			lo, hi = min(lo, v), max(hi, v)
		}
		w := bits.Len32(hi - lo)
		dst = append(dst, byte(w))
		dst = binary.AppendUvarint(dst, uint64(lo))
		if w == 0 {
			continue
		}
		var acc uint64 // pending bits, fewer than 8 between counts
		n := 0
		for i := range c {
			acc |= uint64(uint32(*c[i].column(col))-lo) << n
			for n += w; n >= 8; n -= 8 {
				dst = append(dst, byte(acc))
				acc >>= 8
			}
		}
		if n > 0 {
			dst = append(dst, byte(acc))
		}
	}
	return dst
}

var errPackedShort = errors.New("packed chunk: ends early")

// unpackChunk sets every count of c from the packed form p. It fails on
// anything packChunk cannot have written: a width over 32, a count over
// the int32 range, bytes missing or left over.
func unpackChunk[B ~string | ~[]byte](c *chunk, p B) error {
	for col := range slotColumns {
		if len(p) == 0 {
			return errPackedShort
		}
		w := int(p[0])
		if w > 32 {
			return fmt.Errorf("packed chunk: column %d: width %d bits, over 32", col, w)
		}
		p = p[1:]
		var lo uint64
		for shift := 0; ; shift += 7 {
			if len(p) == 0 {
				return errPackedShort
			}
			b := p[0]
			p = p[1:]
			if shift > 28 || lo|uint64(b&0x7f)<<shift > math.MaxInt32 {
				return fmt.Errorf("packed chunk: column %d: base over %d", col, math.MaxInt32)
			}
			lo |= uint64(b&0x7f) << shift
			if b < 0x80 {
				break
			}
		}
		size := (len(c)*w + 7) / 8
		if len(p) < size {
			return errPackedShort
		}
		var acc uint64 // bits read and not yet taken, fewer than 8 + width
		n, k := 0, 0
		mask := uint64(1)<<w - 1
		for i := range c {
			for ; n < w; n += 8 {
				acc |= uint64(p[k]) << n
				k++
			}
			v := lo + acc&mask
			if v > math.MaxInt32 {
				return fmt.Errorf("packed chunk: column %d slot %d: count %d over %d", col, i, v, math.MaxInt32)
			}
			*c[i].column(col) = int32(v)
			acc >>= w
			n -= w
		}
		p = p[size:]
	}
	if len(p) != 0 {
		return fmt.Errorf("packed chunk: %d bytes left over", len(p))
	}
	return nil
}
