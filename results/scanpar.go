package results

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sync"
)

// The parallel scan. One goroutine reads the input in chunks cut at line
// boundaries; workers decode whole chunks into items; Scan's own
// goroutine delivers the items chunk by chunk in file order (the order in
// which the reader made the chunks, whatever order they were decoded in),
// so the handler sees exactly what the serial scan shows it. Memory is
// bounded: a fixed number of chunks exists, and the reader waits for a
// free one.

// chunkSize is the bytes the reader puts in a chunk (a chunk grows past it
// only to hold a line longer than that); tests use smaller chunks.
const chunkSize = 128 << 10

// chunk is a run of whole lines and, once decoded, their items.
type chunk struct {
	buf   []byte
	first int // the number of the chunk's first line
	// last: the input ends with this chunk; readErr is what ended it
	// (io.EOF, a read error, or errLineTooLong when a line outgrew
	// maxLine).
	last    bool
	readErr error
	items   []item
	n       int // items decoded
	// tooLong is the number of a line longer than maxLine, the last the
	// chunk's decoding reached (0: none).
	tooLong int
	// cut: decoding stopped at a line that cannot be decoded, with more
	// lines after it; that line is then not the input's last.
	cut     bool
	decoded chan struct{}
}

// parScan is the state the goroutines of one parallel scan share.
type parScan struct {
	free  chan *chunk // chunks to read into
	work  chan *chunk // chunks to decode
	order chan *chunk // chunks in file order, to deliver
	stop  chan struct{}
	size  int // chunkSize
}

func (s *scanner) parallel(r io.Reader, workers, size int) (bool, error) {
	inFlight := 2*workers + 2
	p := &parScan{free: make(chan *chunk, inFlight), work: make(chan *chunk, inFlight),
		order: make(chan *chunk, inFlight), stop: make(chan struct{}), size: size}
	all := make([]*chunk, inFlight)
	for i := range all {
		all[i], _ = chunks.Get().(*chunk)
		if all[i] == nil {
			all[i] = &chunk{decoded: make(chan struct{}, 1)}
		}
		p.free <- all[i]
	}
	var wg sync.WaitGroup
	wg.Go(func() { p.read(r) })
	for range workers {
		wg.Go(func() {
			d := decoder{h: &s.h}
			for c := range p.work {
				select {
				case <-p.stop: // the deliverer is done: decode no more
					c.n, c.tooLong, c.cut = 0, 0, false
				default:
					c.decode(&d)
				}
				c.decoded <- struct{}{}
			}
		})
	}
	torn, err := s.deliverAll(p, &wg)
	for _, c := range all { // every goroutine that used them is done
		select {
		case <-c.decoded:
		default:
		}
		if cap(c.buf) <= 4*chunkSize && cap(c.items) <= maxPooledItems {
			chunks.Put(c)
		}
	}
	return torn, err
}

// maxPooledItems is the most items a chunk kept for the next scan may
// hold: a chunk of 128 KiB of real results lines has a few hundred; one of
// tiny lines (a file that is not a results file) many more.
const maxPooledItems = 4096

// deliverAll delivers every chunk, then stops the reader and the workers
// and waits for them, also when the handler panics.
func (s *scanner) deliverAll(p *parScan, wg *sync.WaitGroup) (bool, error) {
	defer wg.Wait()
	defer close(p.stop)
	return s.deliverChunks(p)
}

// chunks keeps the chunks of finished scans for the next one (a merge
// scans file after file), their items' containers with them.
var chunks sync.Pool

// read fills chunks from r until it ends, and hands each to the workers
// and, in order, to the deliverer.
func (p *parScan) read(r io.Reader) {
	defer close(p.work)
	defer close(p.order)
	var carry []byte // the start of a line the last chunk cut
	line := 1
	for {
		var c *chunk
		select {
		case c = <-p.free:
		case <-p.stop:
			return
		}
		c.first, c.last, c.readErr = line, false, nil
		c.buf = append(c.buf[:0], carry...)
		carry = carry[:0]
		c.fill(r, p.size)
		if !c.last {
			i := bytes.LastIndexByte(c.buf, '\n')
			carry = append(carry, c.buf[i+1:]...)
			c.buf = c.buf[:i+1]
		}
		line += bytes.Count(c.buf, []byte{'\n'})
		for _, ch := range []chan *chunk{p.work, p.order} {
			select {
			case ch <- c:
			case <-p.stop:
				return
			}
		}
		if c.last {
			return
		}
	}
}

// fill reads into c.buf until it holds a whole line and size bytes (more
// only to finish a line longer than that), or r ends (c.last). A buffer
// from an earlier scan may be larger than size: the chunk still stops at
// size, so the chunks are the size asked for.
func (c *chunk) fill(r io.Reader, size int) {
	if cap(c.buf) < size {
		c.buf = append(make([]byte, 0, size), c.buf...)
	}
	for limit := size; ; limit = cap(c.buf) {
		for len(c.buf) < limit {
			n, err := r.Read(c.buf[len(c.buf):limit])
			c.buf = c.buf[:len(c.buf)+n]
			if err != nil {
				c.last, c.readErr = true, err
				return
			}
		}
		if bytes.IndexByte(c.buf, '\n') >= 0 {
			return
		}
		if len(c.buf) > maxLine {
			c.last, c.readErr = true, errLineTooLong
			return
		}
		c.buf = append(c.buf, 0)[:len(c.buf)] // grow, keep reading the line
	}
}

// decode splits the chunk into lines and decodes the non-empty ones. A
// line that cannot be decoded ends the scan when it is delivered, so
// decoding stops after it, unless the chunk is the input's last (there
// the deliverer must see which line is last, to tell a torn one).
func (c *chunk) decode(d *decoder) {
	c.n, c.tooLong, c.cut = 0, 0, false
	rest, n := c.buf, c.first
	for ; len(rest) > 0; n++ {
		line := rest
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			line, rest = rest[:i], rest[i+1:]
			if i+1 > maxLine {
				c.tooLong = n
				return
			}
		} else {
			rest = nil
			if len(line) > maxLine {
				c.tooLong = n
				return
			}
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		if c.n == len(c.items) {
			c.items = append(c.items, item{})
		}
		it := &c.items[c.n]
		d.decode(it, line, n)
		c.n++
		if !c.last && len(bytes.TrimSpace(rest)) > 0 && (it.typErr != nil || it.err != nil || it.hard != nil) {
			c.cut = true
			return
		}
	}
}

// deliverChunks delivers the items of every chunk in file order, each
// once the next is known (so the last line is known as the last), and
// returns each chunk to the reader once its items are delivered.
func (s *scanner) deliverChunks(p *parScan) (bool, error) {
	var pending *item
	var held *chunk // the chunk pending is in
	release := func(c *chunk) {
		if c != nil {
			if cap(c.buf) > 4*p.size {
				c.buf = nil // a huge line's buffer is not kept
			}
			p.free <- c
		}
	}
	for c := range p.order {
		<-c.decoded
		for i := range c.n {
			if pending != nil {
				if err := s.deliver(pending, false); err != nil {
					return false, err
				}
			}
			if held != c {
				release(held)
				held = c
			}
			pending = &c.items[i]
		}
		if c.cut { // its last decoded line fails, and is not the input's last
			return false, s.deliver(pending, false)
		}
		if c.tooLong > 0 {
			return false, fmt.Errorf("line %d: %w", c.tooLong, errLineTooLong)
		}
		if c.last {
			if errors.Is(c.readErr, errLineTooLong) {
				return false, fmt.Errorf("line %d: %w", c.first+bytes.Count(c.buf, []byte{'\n'}), errLineTooLong)
			}
			return s.end(pending, !errors.Is(c.readErr, io.EOF))
		}
		if held != c {
			release(c) // no line in it
		}
	}
	return false, errors.New("read results: the reader stopped early") // not reached
}
