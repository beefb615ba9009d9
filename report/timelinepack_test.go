package report

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// chunkOf builds a chunk whose slot i holds f(i).
func chunkOf(f func(i int) slot) *chunk {
	var c chunk
	for i := range c {
		c[i] = f(i)
	}
	return &c
}

func TestChunkPackRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	tests := []struct {
		name    string
		c       *chunk
		maxSize int // the packed form's bytes at most
	}{
		{"empty", chunkOf(func(int) slot { return slot{} }), 6},
		{"evenly paced, nothing throttled, nothing answered", chunkOf(func(int) slot { return slot{scheduled: 3} }), 6},
		{"a soak second: ok counts 0 to 7", chunkOf(func(int) slot { return slot{scheduled: 3, ok: rng.Int32N(8)} }), 44},
		{"one slot at the int32 limit", chunkOf(func(i int) slot {
			if i == 57 {
				return slot{scheduled: math.MaxInt32, throttled: math.MaxInt32, ok: math.MaxInt32}
			}
			return slot{}
		}), 3 * (2 + 400)},
		{"every slot at the int32 limit", chunkOf(func(int) slot {
			return slot{scheduled: math.MaxInt32, throttled: math.MaxInt32, ok: math.MaxInt32}
		}), 3 * 6},
		{"counts near a large base", chunkOf(func(i int) slot { return slot{scheduled: 1_000_000 + int32(i%4), ok: 500_000 - int32(i%2)} }), 2 + 4 + 25 + 2 + 4 + 13},
		{"a ramp", chunkOf(func(i int) slot { return slot{scheduled: int32(i), throttled: int32(i / 10), ok: int32(99 - i)} }), 3*2 + 88 + 50 + 88},
		{"random over the whole range", chunkOf(func(int) slot {
			return slot{scheduled: rng.Int32(), throttled: rng.Int32N(3), ok: rng.Int32()}
		}), 3*6 + 400 + 25 + 400},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := packChunk([]byte("prefix"), tt.c)
			if !strings.HasPrefix(string(p), "prefix") {
				t.Fatalf("packChunk did not append to dst: %q", p[:min(len(p), 6)])
			}
			p = p[len("prefix"):]
			if len(p) > tt.maxSize {
				t.Errorf("packed into %d bytes, want at most %d", len(p), tt.maxSize)
			}
			var got chunk
			for i := range got {
				got[i] = slot{scheduled: -1, throttled: -1, ok: -1} // unpacking sets every count
			}
			if err := unpackChunk(&got, string(p)); err != nil {
				t.Fatalf("unpack: %v", err)
			}
			if got != *tt.c {
				t.Errorf("unpacked chunk differs from the packed one")
			}
		})
	}
}

func TestUnpackChunkRejects(t *testing.T) {
	good := packChunk(nil, chunkOf(func(i int) slot { return slot{scheduled: 3, ok: int32(i % 5)} }))
	tests := []struct {
		name, p, want string
	}{
		{"nothing", "", "ends early"},
		{"a width over 32 bits", "\x21\x00", "width 33 bits, over 32"},
		{"no base", "\x00", "ends early"},
		{"a base over int32", "\x00\xff\xff\xff\xff\x0f", "base over 2147483647"},
		{"a base of six bytes", "\x00\x80\x80\x80\x80\x80\x00", "base over 2147483647"},
		{"a count over int32", "\x01\xff\xff\xff\xff\x07" + strings.Repeat("\xff", 13), "count 2147483648 over 2147483647"},
		{"counts cut short", string(good[:len(good)-1]), "ends early"},
		{"a column missing", "\x00\x03\x00\x00", "ends early"},
		{"bytes left over", string(good) + "\x00", "1 bytes left over"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c chunk
			err := unpackChunk(&c, tt.p)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("unpackChunk(%q) = %v, want an error with %q", tt.p, err, tt.want)
			}
		})
	}
}

// FuzzChunkPack: unpacking any bytes fails or gives a chunk that packs and
// unpacks to itself; and any chunk (built from the fuzz bytes) packs and
// unpacks to itself.
func FuzzChunkPack(f *testing.F) {
	f.Add([]byte{})
	f.Add(packChunk(nil, chunkOf(func(i int) slot { return slot{scheduled: 3, ok: int32(i % 7)} })))
	f.Add(packChunk(nil, chunkOf(func(i int) slot { return slot{scheduled: math.MaxInt32 - int32(i)} })))
	f.Fuzz(func(t *testing.T, p []byte) {
		var c, again chunk
		if err := unpackChunk(&c, p); err == nil {
			if err := unpackChunk(&again, packChunk(nil, &c)); err != nil || again != c {
				t.Fatalf("unpacked %q, packed again: err %v, same %v", p, err, again == c)
			}
		}
		var from chunk
		for i := range from {
			for col := range slotColumns {
				k := (i*slotColumns + col) * 4
				if k+4 <= len(p) {
					*from[i].column(col) = int32(uint32(p[k])|uint32(p[k+1])<<8|uint32(p[k+2])<<16|uint32(p[k+3])<<24) & math.MaxInt32
				}
			}
		}
		if err := unpackChunk(&again, string(packChunk(nil, &from))); err != nil || again != from {
			t.Fatalf("a chunk from %q does not pack and unpack to itself: err %v", p, err)
		}
	})
}
