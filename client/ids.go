package client

import (
	"math/rand/v2"
	"sync"
	"sync/atomic"
)

// IDShuffleBlock is how many ids a shuffled IDSource permutes at a time:
// ids 1..16 are handed out in a random order, then 17..32, and so on, so
// every id is still used once, and later calls often carry lower ids than
// earlier ones (a bridge that assumes ids only grow, or keeps "the last
// id", is caught).
const IDShuffleBlock = 16

// shuffler is a shuffled IDSource's state.
type shuffler struct {
	mu    sync.Mutex
	rng   *rand.Rand
	block [IDShuffleBlock]int64
	pos   int // index of the next id in block; IDShuffleBlock: refill
}

// NewShuffledIDs returns an IDSource whose ids are unique but out of
// order, a permutation of each block of IDShuffleBlock drawn from seed.
func NewShuffledIDs(seed int64) *IDSource {
	return &IDSource{sh: &shuffler{rng: rand.New(rand.NewPCG(uint64(seed), 0x1d5)), pos: IDShuffleBlock}}
}

// next hands out the next id; n holds the end of the current block (so
// issued knows every id of it may be in use).
func (s *shuffler) next(n *atomic.Int64) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.pos == IDShuffleBlock {
		base := n.Load()
		for i := range s.block {
			s.block[i] = base + int64(i) + 1
		}
		s.rng.Shuffle(IDShuffleBlock, func(i, j int) { s.block[i], s.block[j] = s.block[j], s.block[i] })
		n.Store(base + IDShuffleBlock)
		s.pos = 0
	}
	id := s.block[s.pos]
	s.pos++
	return id
}
