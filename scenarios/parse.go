package scenarios

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
)

// maxFileSize bounds a scenario file; real ones are a few kilobytes.
const maxFileSize = 1 << 20

// Load reads the scenario file at path, expands environment references,
// decodes it strictly, fills in defaults and validates it. A problem in
// the file is reported as Errors naming path:line:column.
func Load(path string) (*Scenario, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read scenario: %w", err)
	}
	return Parse(path, data)
}

// Parse is Load for a file already in memory; filename is used in error
// messages and for the default name.
func Parse(filename string, data []byte) (*Scenario, error) {
	return parse(filename, data, os.LookupEnv)
}

func parse(filename string, data []byte, lookup func(string) (string, bool)) (*Scenario, error) {
	d := newDecoder(filename, lookup)
	if len(data) > maxFileSize {
		d.errorf(Pos{}, "", "file is larger than %d bytes", maxFileSize)
		return nil, d.errs
	}
	file, err := parseYAML(data)
	if err != nil {
		var ye yaml.Error
		if errors.As(err, &ye) {
			d.errorf(tokenPos(ye), "", "%s", ye.GetMessage())
		} else {
			d.errorf(Pos{}, "", "invalid YAML: %v", err)
		}
		return nil, d.errs
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
		return nil, d.errs
	case len(docs) > 1:
		d.errorf(posOf(docs[1].Body), "", "a scenario file holds one YAML document, found %d", len(docs))
		return nil, d.errs
	}
	d.link(docs[0], 0)
	s := d.scenario(docs[0].Body)
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

// parseYAML runs the YAML parser, turning a panic inside it into an
// error: no input may crash the caller.
func parseYAML(data []byte) (f *ast.File, err error) {
	defer func() {
		if r := recover(); r != nil {
			f, err = nil, fmt.Errorf("parser failure: %v", r)
		}
	}()
	return parser.ParseBytes(data, 0)
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
		l.Rate, l.Stages, l.Concurrency = *rate, nil, 0
	}
	if duration != nil {
		if *duration < 0 {
			return fmt.Errorf("duration override %s: must not be negative", *duration)
		}
		l.Duration = Duration(*duration)
	}
	if len(l.Stages) == 0 && l.Duration <= 0 {
		if duration != nil {
			return fmt.Errorf("duration override %s: must be positive without stages", *duration)
		}
		return errors.New("rate override: the scenario's load has stages and no duration, so a constant rate has none; give a duration too")
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
