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

// File is a results file read back.
type File struct {
	Header  Header
	Records []Record
	Samples []Sample
	// Trailer is nil when the run did not end normally.
	Trailer *Trailer
	// Torn is true when the last line was cut short (a crash) and skipped.
	Torn bool
}

var errNoNewline = errors.New("last line has no newline")

// maxLine bounds one line of a results file.
const maxLine = 16 << 20

// errLineTooLong is a line over maxLine: the writer never writes one, so it
// is damage, not a torn end.
var errLineTooLong = fmt.Errorf("line longer than %d bytes", maxLine)

// Open reads a results file (".gz" decompresses).
func Open(path string) (*File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open results file: %w", err)
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(path, ".gz") {
		gz, err := gzip.NewReader(f)
		if err != nil {
			return nil, fmt.Errorf("open results file %s: %w", path, err)
		}
		r = gz
	}
	out, err := Read(r)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return out, nil
}

// Read reads results lines. A last line that does not decode (or a
// compressed stream cut short) is skipped and reported as Torn; a bad line
// before the last is an error naming its number.
func Read(r io.Reader) (*File, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	out := &File{}
	var pending []byte
	pendingLine := 0
	for n := 1; ; n++ {
		line, err := readLine(br)
		if len(line) > 0 {
			if pending != nil {
				if derr := out.decode(pending); derr != nil {
					return nil, fmt.Errorf("line %d: %w", pendingLine, derr)
				}
			}
			pending, pendingLine = line, n
		}
		if errors.Is(err, errLineTooLong) {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		if err != nil {
			// A cut compressed stream is torn; a plain file that merely
			// lacks its last newline is torn only if that line is broken.
			torn := !errors.Is(err, io.EOF) && !errors.Is(err, errNoNewline)
			if pending != nil {
				if derr := out.decode(pending); derr != nil {
					torn = true
				}
			}
			out.Torn = torn
			if out.Header.Type != TypeHeader {
				return nil, errors.New("no header line: not an mcpchaos results file")
			}
			return out, nil
		}
	}
}

func readLine(br *bufio.Reader) ([]byte, error) {
	var line []byte
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
			return bytes.TrimSpace(line), nil
		}
		if len(bytes.TrimSpace(line)) > 0 && err == io.EOF {
			// A last line without its newline: the writer died mid-line.
			return line, errNoNewline
		}
		return bytes.TrimSpace(line), err
	}
}

func (f *File) decode(line []byte) error {
	var probe struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(line, &probe); err != nil {
		return err
	}
	switch probe.Type {
	case TypeHeader:
		return json.Unmarshal(line, &f.Header)
	case TypeCall:
		var r Record
		if err := json.Unmarshal(line, &r); err != nil {
			return err
		}
		f.Records = append(f.Records, r)
	case TypeSample:
		var s Sample
		if err := json.Unmarshal(line, &s); err != nil {
			return err
		}
		f.Samples = append(f.Samples, s)
	case TypeTrailer:
		var t Trailer
		if err := json.Unmarshal(line, &t); err != nil {
			return err
		}
		f.Trailer = &t
	default:
		return fmt.Errorf("unknown line type %q", probe.Type)
	}
	return nil
}
