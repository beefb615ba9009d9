package client

import (
	"slices"
	"testing"
)

// TestShuffledIDs: a shuffled source hands out every id once, some of them
// lower than one handed out before, the same order for the same seed.
func TestShuffledIDs(t *testing.T) {
	draw := func(seed int64) []int64 {
		s := NewShuffledIDs(seed)
		var ids []int64
		for range 5 * IDShuffleBlock {
			ids = append(ids, s.Next())
		}
		return ids
	}
	ids := draw(7)
	sorted := slices.Sorted(slices.Values(ids))
	for i, id := range sorted {
		if id != int64(i+1) {
			t.Fatalf("ids %v are not 1..%d once each", ids, len(ids))
		}
	}
	if slices.IsSorted(ids) {
		t.Errorf("ids %v are in order", ids)
	}
	if !slices.Equal(ids, draw(7)) {
		t.Error("the same seed gave another order")
	}
	s := NewShuffledIDs(7)
	first := s.Next()
	if !s.issued(IDShuffleBlock) || s.issued(IDShuffleBlock+1) || !s.issued(first) {
		t.Errorf("issued: the first block's ids are issued, the next block's are not")
	}
}
