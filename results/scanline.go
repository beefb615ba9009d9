package results

import (
	"encoding/json"
	"errors"
	"fmt"
)

// item is one non-empty line of a results file, decoded. The serial scan
// and the parallel one (scanpar.go) decode lines into items the same way
// (decode, which needs no state) and hand them over the same way, in file
// order (scanner.deliver, which holds the state: has the header come).
type item struct {
	n      int    // the line's number, from 1
	b      []byte // the line, trimmed (valid while its buffer is held)
	typ    string
	typErr error // the line's type could not be read
	// err is a decode error (a torn line when it is the last), hard one
	// that stays an error even then (a header's impossible shard).
	err, hard error
	rec       Record
	sp        spare
	hdr       *Header
	smp       *Sample
	trl       *Trailer
}

// decoder decodes lines for one goroutine: its interned names are its own.
type decoder struct {
	h     *Handler
	names interner
}

// decode decodes line b, the n-th, into it.
func (d *decoder) decode(it *item, b []byte, n int) {
	it.n, it.b, it.err, it.hard = n, b, nil, nil
	it.hdr, it.smp, it.trl = nil, nil, nil
	it.typ, it.typErr = lineType(b)
	if it.typErr != nil {
		return
	}
	switch it.typ {
	case TypeHeader:
		it.hdr = &Header{}
		it.err = unmarshalTyped(b, it.hdr, &it.hdr.Type, it.typ)
		if sh := it.hdr.Shard; it.err == nil && sh != nil {
			if err := sh.Validate(); err != nil {
				// Not torn, even as the last line: the header decoded and
				// states a split that cannot be.
				it.hard = fmt.Errorf("header: %w", err)
			}
		}
	case TypeCall:
		if d.h.Record == nil {
			it.err = valid(b)
			return
		}
		d.record(it, b)
	case TypeSample:
		if d.h.Sample == nil {
			it.err = valid(b)
			return
		}
		it.smp = &Sample{}
		it.err = unmarshalTyped(b, it.smp, &it.smp.Type, it.typ)
	case TypeTrailer:
		it.trl = &Trailer{}
		it.err = unmarshalTyped(b, it.trl, &it.trl.Type, it.typ)
	default:
		it.err = fmt.Errorf("unknown line type %q", it.typ)
	}
}

// record decodes a call line on the fast path, else with encoding/json.
func (d *decoder) record(it *item, b []byte) {
	var sp *spare
	if d.h.Reuse {
		sp = &it.sp
	}
	it.rec = Record{}
	if !fastRecordWith(b, &it.rec, &d.names, sp) {
		it.rec = Record{}
		if err := json.Unmarshal(b, &it.rec); err != nil {
			it.err = err
			return
		}
	}
	if it.rec.Type != it.typ {
		it.err = errTwoTypes
	}
}

// unmarshalTyped decodes b into v, whose type member (*got) must be typ.
func unmarshalTyped(b []byte, v any, got *string, typ string) error {
	if err := json.Unmarshal(b, v); err != nil {
		return err
	}
	if *got != typ {
		return errTwoTypes
	}
	return nil
}

// valid checks that a line nobody reads is still JSON.
func valid(b []byte) error {
	if !json.Valid(b) {
		return errors.New("invalid JSON")
	}
	return nil
}

// deliver hands a decoded line to the handler. A decode error of the last
// line is errTornLast; a handler's error is returned as it is.
func (s *scanner) deliver(it *item, last bool) error {
	fail := func(err error) error {
		if last {
			return errTornLast
		}
		return fmt.Errorf("line %d: %w", it.n, err)
	}
	if it.typErr != nil {
		return fail(it.typErr)
	}
	if !s.header && it.typ != TypeHeader {
		if last && !json.Valid(it.b) {
			return errTornLast
		}
		return fmt.Errorf("line %d: %w", it.n, errNoHeader)
	}
	if it.hard != nil {
		return fmt.Errorf("line %d: %w", it.n, it.hard)
	}
	if it.err != nil {
		return fail(it.err)
	}
	switch it.typ {
	case TypeHeader:
		s.header = true
		return call(s.h.Header, it.hdr)
	case TypeCall:
		return call(s.h.Record, &it.rec)
	case TypeSample:
		return call(s.h.Sample, it.smp)
	}
	return call(s.h.Trailer, it.trl)
}
