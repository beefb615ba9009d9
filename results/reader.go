package results

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// File is a results file read back whole. For a large file use Scan,
// which holds one line at a time.
type File struct {
	Header  Header
	Records []Record
	Samples []Sample
	// Trailer is nil when the run did not end normally.
	Trailer *Trailer
	// Torn is true when the last line was cut short (a crash) and skipped.
	Torn bool
}

// Handler receives the lines of a results file as Scan decodes them, in
// file order. A nil member skips the lines of its type without decoding
// them. The value passed is Scan's own and is reused for the next line of
// the same type: copy what must outlive the call. An error stops Scan and
// is returned as it is.
type Handler struct {
	Header  func(*Header) error
	Record  func(*Record) error
	Sample  func(*Sample) error
	Trailer func(*Trailer) error
}

var errNoNewline = errors.New("last line has no newline")

// maxLine bounds one line of a results file.
const maxLine = 16 << 20

// errLineTooLong is a line over maxLine: the writer never writes one, so it
// is damage, not a torn end.
var errLineTooLong = fmt.Errorf("line longer than %d bytes", maxLine)

// errNoHeader: the first line is not a header.
var errNoHeader = errors.New("no header line: not an mcpchaos results file")

// Open reads a whole results file (".gz" decompresses).
func Open(path string) (*File, error) {
	out := &File{}
	torn, err := ScanFile(path, out.handler())
	if err != nil {
		return nil, err
	}
	out.Torn = torn
	return out, nil
}

// Read reads a whole results file's lines. A last line that does not
// decode (or a compressed stream cut short) is skipped and reported as
// Torn; a bad line before the last is an error naming its number.
func Read(r io.Reader) (*File, error) {
	out := &File{}
	torn, err := Scan(r, out.handler())
	if err != nil {
		return nil, err
	}
	out.Torn = torn
	return out, nil
}

func (f *File) handler() Handler {
	return Handler{
		Header: func(h *Header) error { f.Header = *h; return nil },
		Record: func(r *Record) error { f.Records = append(f.Records, *r); return nil },
		Sample: func(s *Sample) error { f.Samples = append(f.Samples, *s); return nil },
		Trailer: func(t *Trailer) error {
			c := *t
			f.Trailer = &c
			return nil
		},
	}
}

// ScanFile streams a results file (".gz" decompresses) through h; see
// Scan. Errors name the file.
func ScanFile(path string, h Handler) (torn bool, err error) {
	f, err := os.Open(path)
	if err != nil {
		return false, fmt.Errorf("open results file: %w", err)
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(path, ".gz") {
		gz, err := gzip.NewReader(f)
		if err != nil {
			return false, fmt.Errorf("open results file %s: %w", path, err)
		}
		r = gz
	}
	torn, err = Scan(r, h)
	if err != nil {
		return false, fmt.Errorf("read %s: %w", path, err)
	}
	return torn, nil
}

// Scan streams results lines through h, holding at most two lines (each
// at most 16 MiB) at a time. The first line must be the header. A last
// line that does not decode (or a compressed stream cut short) is skipped
// and torn is true; a bad line before the last is an error naming its
// number.
func Scan(r io.Reader, h Handler) (torn bool, err error) {
	s := scanner{h: h, br: bufio.NewReaderSize(r, 64<<10)}
	return s.run()
}

// scanner decodes each line once the next one has been read, so a broken
// last line can be told from a broken line in the middle.
type scanner struct {
	h       Handler
	br      *bufio.Reader
	header  bool
	bufs    [2][]byte
	rec     Record
	sample  Sample
	hdr     Header
	trailer Trailer
}

func (s *scanner) run() (bool, error) {
	var pending []byte
	pendingLine, cur := 0, 0
	for n := 1; ; n++ {
		line, err := readLine(s.br, s.bufs[cur][:0])
		if errors.Is(err, errLineTooLong) {
			return false, fmt.Errorf("line %d: %w", n, err)
		}
		if line != nil {
			s.bufs[cur] = line[:0]
		}
		line = bytes.TrimSpace(line)
		if len(line) > 0 {
			if pending != nil {
				if err := s.line(pending, pendingLine, false); err != nil {
					return false, err
				}
			}
			pending, pendingLine = line, n
			cur = 1 - cur // the next line goes to the other buffer
		}
		if err == nil {
			continue
		}
		// A cut compressed stream is torn; a plain file that merely
		// lacks its last newline is torn only if that line is broken.
		torn := !errors.Is(err, io.EOF) && !errors.Is(err, errNoNewline)
		if pending != nil {
			if err := s.line(pending, pendingLine, true); err != nil {
				if !errors.Is(err, errTornLast) {
					return false, err
				}
				torn = true
			}
		}
		if !s.header {
			return false, errNoHeader
		}
		return torn, nil
	}
}

// errTwoTypes: a line whose "type" member is given twice, differently.
var errTwoTypes = errors.New(`the "type" member appears twice`)

// errTornLast marks a last line that does not decode.
var errTornLast = errors.New("torn last line")

// line decodes one line and hands it to the handler. A decode error of the
// last line is errTornLast; a handler's error is returned as it is.
func (s *scanner) line(b []byte, n int, last bool) error {
	fail := func(err error) error {
		if last {
			return errTornLast
		}
		return fmt.Errorf("line %d: %w", n, err)
	}
	typ, err := lineType(b)
	if err != nil {
		return fail(err)
	}
	if !s.header && typ != TypeHeader {
		if last && !json.Valid(b) {
			return errTornLast
		}
		return fmt.Errorf("line %d: %w", n, errNoHeader)
	}
	switch typ {
	case TypeHeader:
		s.hdr = Header{}
		if err := json.Unmarshal(b, &s.hdr); err != nil {
			return fail(err)
		}
		if s.hdr.Type != typ {
			return fail(errTwoTypes)
		}
		if sh := s.hdr.Shard; sh != nil {
			if err := sh.Validate(); err != nil {
				// Not torn, even as the last line: the header decoded and
				// states a split that cannot be.
				return fmt.Errorf("line %d: header: %w", n, err)
			}
		}
		s.header = true
		return call(s.h.Header, &s.hdr)
	case TypeCall:
		if s.h.Record == nil {
			return skip(b, fail)
		}
		s.rec = Record{}
		if !fastRecord(b, &s.rec) {
			s.rec = Record{}
			if err := json.Unmarshal(b, &s.rec); err != nil {
				return fail(err)
			}
		}
		if s.rec.Type != typ {
			return fail(errTwoTypes)
		}
		return s.h.Record(&s.rec)
	case TypeSample:
		if s.h.Sample == nil {
			return skip(b, fail)
		}
		s.sample = Sample{}
		if err := json.Unmarshal(b, &s.sample); err != nil {
			return fail(err)
		}
		if s.sample.Type != typ {
			return fail(errTwoTypes)
		}
		return s.h.Sample(&s.sample)
	case TypeTrailer:
		s.trailer = Trailer{}
		if err := json.Unmarshal(b, &s.trailer); err != nil {
			return fail(err)
		}
		if s.trailer.Type != typ {
			return fail(errTwoTypes)
		}
		return call(s.h.Trailer, &s.trailer)
	}
	return fail(fmt.Errorf("unknown line type %q", typ))
}

func call[T any](f func(*T) error, v *T) error {
	if f == nil {
		return nil
	}
	return f(v)
}

// skip checks that a line nobody reads is still JSON.
func skip(b []byte, fail func(error) error) error {
	if !json.Valid(b) {
		return fail(errors.New("invalid JSON"))
	}
	return nil
}

// typePrefixes are the beginnings the writer gives each line type (the
// "type" member comes first), so most lines need no second decode.
var typePrefixes = [...]struct{ prefix, typ string }{
	{`{"type":"call",`, TypeCall},
	{`{"type":"sample",`, TypeSample},
	{`{"type":"header",`, TypeHeader},
	{`{"type":"trailer",`, TypeTrailer},
}

// lineType returns a line's "type" member.
func lineType(b []byte) (string, error) {
	for _, p := range typePrefixes {
		if bytes.HasPrefix(b, []byte(p.prefix)) {
			return p.typ, nil
		}
	}
	var probe struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(b, &probe); err != nil {
		return "", err
	}
	return probe.Type, nil
}

// readLine reads one line into buf (reused), without its newline, at
// most maxLine bytes.
func readLine(br *bufio.Reader, buf []byte) ([]byte, error) {
	line := buf
	for {
		chunk, err := br.ReadSlice('\n')
		line = append(line, chunk...)
		if len(line) > maxLine {
			return nil, errLineTooLong
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err == nil {
			return line, nil
		}
		if len(bytes.TrimSpace(line)) > 0 && err == io.EOF {
			// A last line without its newline: the writer died mid-line.
			return line, errNoNewline
		}
		return line, err
	}
}
