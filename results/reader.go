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
	"runtime"
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
	// Reuse lets Scan reuse a Record's maps, slices and pointers
	// (Policies, Progress, Faults, Code...) for later lines as well: no
	// allocation for them per line, for a handler that keeps none of them
	// past its return (a deep copy is the handler's to make). Without it
	// they are new for every line, and a copy of the Record may keep them.
	Reuse bool
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

// Scan streams results lines through h, holding a bounded number of lines
// (each at most 16 MiB) at a time. The first line must be the header. A
// last line that does not decode (or a compressed stream cut short) is
// skipped and torn is true; a bad line before the last is an error naming
// its number. With more than one CPU (GOMAXPROCS), lines are decoded in
// parallel by up to maxDecoders goroutines (scanpar.go); the handler is
// still called from Scan's own goroutine, one line at a time, in file
// order.
func Scan(r io.Reader, h Handler) (torn bool, err error) {
	return scan(r, h, min(runtime.GOMAXPROCS(0), maxDecoders), chunkSize)
}

// maxDecoders bounds the decoders of a parallel scan (and so its chunks in
// flight): past a few, the handler, which takes the lines one at a time,
// is the limit.
const maxDecoders = 8

// scan is Scan with workers decoders over chunks of chunk bytes; 1 or
// fewer workers decodes each line in the caller's goroutine as it is read.
func scan(r io.Reader, h Handler, workers, chunk int) (bool, error) {
	s := &scanner{h: h}
	if workers > 1 {
		return s.parallel(r, workers, chunk)
	}
	return s.serial(bufio.NewReaderSize(r, 64<<10))
}

// scanner hands decoded lines to the handler; it delivers each line once
// the next one has been read, so a broken last line can be told from a
// broken line in the middle.
type scanner struct {
	h      Handler
	header bool
}

// serial reads and decodes one line at a time.
func (s *scanner) serial(br *bufio.Reader) (bool, error) {
	d := decoder{h: &s.h}
	var bufs [2][]byte
	var items [2]item
	var pending *item
	cur := 0
	for n := 1; ; n++ {
		line, err := readLine(br, bufs[cur][:0])
		if errors.Is(err, errLineTooLong) {
			return false, fmt.Errorf("line %d: %w", n, err)
		}
		if line != nil {
			bufs[cur] = line[:0]
		}
		line = bytes.TrimSpace(line)
		if len(line) > 0 {
			d.decode(&items[cur], line, n)
			if pending != nil {
				if err := s.deliver(pending, false); err != nil {
					return false, err
				}
			}
			pending = &items[cur]
			cur = 1 - cur // the next line goes to the other buffer
		}
		if err == nil {
			continue
		}
		// A cut compressed stream is torn; a plain file that merely
		// lacks its last newline is torn only if that line is broken.
		return s.end(pending, !errors.Is(err, io.EOF) && !errors.Is(err, errNoNewline))
	}
}

// end delivers the last line (nil: there was none) after the input ended;
// torn says whether the input itself was cut short.
func (s *scanner) end(last *item, torn bool) (bool, error) {
	if last != nil {
		if err := s.deliver(last, true); err != nil {
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

// errTwoTypes: a line whose "type" member is given twice, differently.
var errTwoTypes = errors.New(`the "type" member appears twice`)

// errTornLast marks a last line that does not decode.
var errTornLast = errors.New("torn last line")

func call[T any](f func(*T) error, v *T) error {
	if f == nil {
		return nil
	}
	return f(v)
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
