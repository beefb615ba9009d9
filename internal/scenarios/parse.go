package scenarios

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/lexer"
	"github.com/goccy/go-yaml/parser"
)

// Load reads the scenario file at path, expands environment references,
// decodes it strictly, fills in defaults and validates it. A problem in
// the file is reported as Errors naming path:line:column.
//
// At most MaxFileSize+1 bytes are read, whatever path is: a file larger
// than MaxFileSize, /dev/zero or a FIFO fed without end fail after that
// many bytes.
func Load(path string) (*Scenario, error) {
	data, err := readLimited(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, data)
}

// readLimited reads the file at path, at most MaxFileSize+1 bytes of it;
// parse reports a file that holds more.
func readLimited(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read scenario: %w", err)
	}
	defer f.Close()
	var buf bytes.Buffer
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() && st.Size() <= MaxFileSize {
		buf.Grow(int(st.Size()) + 1)
	}
	if _, err := buf.ReadFrom(io.LimitReader(f, MaxFileSize+1)); err != nil {
		return nil, fmt.Errorf("read scenario: %w", &os.PathError{Op: "read", Path: path, Err: err})
	}
	return buf.Bytes(), nil
}

// utf8BOM is the byte order mark some editors write at the start of a
// UTF-8 file; it is dropped. (UTF-16 files are refused by name: their
// marks are the first two bytes.)
var utf8BOM = []byte("\xef\xbb\xbf")

// Parse is Load for a file already in memory; filename is used in error
// messages and for the default name.
func Parse(filename string, data []byte) (*Scenario, error) {
	return parse(filename, data, os.LookupEnv)
}

func parse(filename string, data []byte, lookup func(string) (string, bool)) (*Scenario, error) {
	d := newDecoder(filename, lookup)
	body, ok := d.document(data)
	if !ok {
		return nil, d.errs
	}
	s := d.scenario(body)
	if d.collectSecrets(s); !d.secrets.Empty() {
		s.Secrets = d.secrets // nil, an empty set, when there is none
	}
	if b := s.Target.Builtin; b != nil {
		b.Seed = s.Seed // the built-in target draws from the scenario's seed
	}
	if len(d.errs) == 0 {
		d.validate(s)
	}
	if len(d.errs) > 0 {
		return nil, d.errs.sorted().redacted(d.secrets)
	}
	return s, nil
}

// document checks data's size and encoding, parses it as YAML within the
// token bounds and returns the body of its one document, linked (aliases
// resolved). ok is false when d.errs says why not. A proxy file goes
// through the same front end as a scenario.
func (d *decoder) document(data []byte) (body ast.Node, ok bool) {
	if len(data) > MaxFileSize {
		d.errorf(Pos{}, "", "file is larger than %d bytes (%s), the most a scenario may hold", MaxFileSize, ByteSize(MaxFileSize))
		return nil, false
	}
	data = bytes.TrimPrefix(data, utf8BOM)
	if bytes.HasPrefix(data, []byte{0xfe, 0xff}) || bytes.HasPrefix(data, []byte{0xff, 0xfe}) {
		d.errorf(Pos{}, "", "file is UTF-16 (it starts with a UTF-16 byte order mark); save it as UTF-8")
		return nil, false
	}
	if p := countTokens(data); p.IsValid() {
		d.errorf(p, "", "more than %d YAML tokens (keys, values and punctuation), the most a scenario may hold", MaxTokens)
		return nil, false
	}
	file, bound, err := parseYAML(data)
	if bound != nil {
		d.errorf(bound.pos, "", "%s", bound.msg)
		return nil, false
	}
	if err != nil {
		var ye yaml.Error
		if errors.As(err, &ye) {
			d.errorf(tokenPos(ye), "", "%s", ye.GetMessage())
		} else {
			d.errorf(Pos{}, "", "invalid YAML: %v", err)
		}
		return nil, false
	}
	var docs []*ast.DocumentNode
	for _, doc := range file.Docs {
		if doc != nil && !isNil(doc.Body) {
			docs = append(docs, doc)
		}
	}
	switch {
	case len(docs) == 0:
		d.errorf(Pos{}, "", "empty scenario file")
		return nil, false
	case len(docs) > 1:
		d.errorf(posOf(docs[1].Body), "", "a scenario file holds one YAML document, found %d", len(docs))
		return nil, false
	}
	d.link(docs[0], 0)
	return docs[0].Body, true
}

// parseYAML runs the YAML lexer and parser, with checkTokens between
// them, turning a panic inside them into an error: no input may crash the
// caller.
func parseYAML(data []byte) (f *ast.File, bound *tokenBoundError, err error) {
	defer func() {
		if r := recover(); r != nil {
			f, bound, err = nil, nil, fmt.Errorf("parser failure: %v", r)
		}
	}()
	tokens := lexer.Tokenize(string(data))
	if bound := checkTokens(tokens); bound != nil {
		return nil, bound, nil
	}
	f, err = parser.Parse(tokens, 0)
	return f, nil, err
}

func tokenPos(e yaml.Error) Pos {
	tk := e.GetToken()
	if tk == nil || tk.Position == nil {
		return Pos{}
	}
	return Pos{Line: tk.Position.Line, Column: tk.Position.Column}
}

// Override applies the run command's --rate, --duration and --seed flags;
// nil leaves a value alone. A rate replaces stages and concurrency with
// that constant rate, held for the duration (the flag's, or the file's).
// Nothing changes when an error is returned.
func (s *Scenario) Override(rate *Rate, duration *time.Duration, seed *int64) error {
	l := s.Load
	if rate != nil {
		if rate.Freq <= 0 || rate.Per <= 0 {
			return fmt.Errorf("rate override %q: count and period must be positive", rate.String())
		}
		if err := CheckRate(*rate); err != nil {
			return fmt.Errorf("rate override: %w", err)
		}
		l.Rate, l.Stages, l.Concurrency = *rate, nil, 0
	}
	if duration != nil {
		if *duration < 0 {
			return fmt.Errorf("duration override %s: must not be negative", *duration)
		}
		if err := CheckDuration(*duration); err != nil {
			return fmt.Errorf("duration override: %w", err)
		}
		l.Duration = Duration(*duration)
	}
	if len(l.Stages) == 0 && l.Duration <= 0 {
		if duration != nil {
			return fmt.Errorf("duration override %s: must be positive without stages", *duration)
		}
		return errors.New("rate override: the scenario's load has stages and no duration, so a constant rate has none; give a duration too")
	}
	if err := l.checkLength(); err != nil {
		return fmt.Errorf("duration override %s: %w", l.Duration, err)
	}
	s.Load = l
	if seed != nil {
		s.Seed = *seed
		if b := s.Target.Builtin; b != nil {
			b.Seed = *seed
		}
	}
	return nil
}
