package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/mcpchaos/mcpchaos/internal/scenarios"
	"github.com/mcpchaos/mcpchaos/report"
)

// No output destroys an input: every command that writes files calls
// checkOverwrites with everything it reads and everything it writes,
// before it opens anything for writing, and refuses (exit status 2) an
// output that is an input or another output. Paths are compared cleaned
// and absolute with symbolic links resolved, and files that exist are
// compared with os.SameFile too (hard links, links of links). "-" is
// standard output, never a file.

// fileUse is one file a command reads or writes, and what names it: a
// flag ("--output"), an argument ("the scenario file") or a scenario key
// ("orphans.probes[0].log.file").
type fileUse struct {
	what, path string
}

// checkOverwrites returns an error naming both sides when an output is the
// same file as an input or as another output.
func checkOverwrites(inputs, outputs []fileUse) error {
	type file struct {
		fileUse
		input bool
		key   string
		info  os.FileInfo
	}
	var seen []file
	for i, u := range slices.Concat(inputs, outputs) {
		if u.path == "" || u.path == "-" {
			continue
		}
		f := file{fileUse: u, input: i < len(inputs), key: pathKey(u.path)}
		f.info, _ = os.Stat(u.path)
		for _, s := range seen {
			if f.input || (f.key != s.key && (f.info == nil || s.info == nil || !os.SameFile(f.info, s.info))) {
				continue
			}
			switch {
			case s.input:
				return fmt.Errorf("%s %q is the same file as %s %q, which mcpchaos reads: an output never overwrites an input; choose another path for %s",
					u.what, u.path, s.what, s.path, u.what)
			case s.what == u.what:
				return fmt.Errorf("%s %q and %q are the same file: each output needs a path of its own", u.what, s.path, u.path)
			}
			return fmt.Errorf("%s %q is the same file as %s %q: each output needs a path of its own", u.what, u.path, s.what, s.path)
		}
		seen = append(seen, f)
	}
	return nil
}

// pathKey is path made absolute and clean, with the symbolic links of the
// file, or of its directory when the file does not exist yet, resolved.
func pathKey(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return filepath.Clean(path)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real
	}
	if dir, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
		return filepath.Join(dir, filepath.Base(abs))
	}
	return abs
}

// checkRunFiles checks the files of a run of the scenario at path: the
// scenario file and its TLS files are read, its log probes' files are
// tailed, and its built-in target appends to log_calls; outputs are the
// command's own. log_calls may be a log probe's file: the probe is there to
// read it.
func checkRunFiles(path string, sc *scenarios.Scenario, outputs []fileUse) error {
	inputs := []fileUse{{"the scenario file", path}}
	if h := sc.Target.HTTP; h != nil && h.TLS != nil {
		inputs = append(inputs, fileUse{"target.http.tls.ca_file", h.TLS.CAFile},
			fileUse{"target.http.tls.cert_file", h.TLS.CertFile}, fileUse{"target.http.tls.key_file", h.TLS.KeyFile})
	}
	var logs []fileUse
	for i, p := range sc.Orphans.Probes {
		if p.Log != nil {
			logs = append(logs, fileUse{fmt.Sprintf("orphans.probes[%d].log.file", i), p.Log.File})
		}
	}
	if err := checkOverwrites(slices.Concat(inputs, logs), outputs); err != nil {
		return err
	}
	if b := sc.Target.Builtin; b != nil && b.LogCalls != "" {
		return checkOverwrites(inputs, slices.Concat(outputs, []fileUse{{"target.builtin.log_calls", b.LogCalls}}))
	}
	return nil
}

// exportFiles are the files the renderings of f write, each named by its
// flag, or by flag when it is not "" (report's one --output); --hgrm writes
// one file a histogram.
func exportFiles(f *exportFlags, flag string) []fileUse {
	var out []fileUse
	add := func(name, path string) {
		if flag != "" {
			name = flag
		}
		if path != "" {
			out = append(out, fileUse{name, path})
		}
	}
	add("--summary-json", f.summaryJSON)
	add("--junit", f.junit)
	add("--hlog", f.hlog)
	add("--vegeta", f.vegeta)
	add("--html", f.html)
	add("--output", f.text)
	if f.hgrm != "" && f.hgrm != "-" {
		for _, name := range report.HistogramNames() {
			add("--hgrm", hgrmPath(f.hgrm, name))
		}
	}
	return out
}

// commandFiles are the words of a stdio server's command that name
// existing regular files (its program, its script, its configuration):
// init --force must not write its scenario over them.
func commandFiles(command []string) []fileUse {
	var files []fileUse
	for i, arg := range command {
		if st, err := os.Stat(arg); err == nil && st.Mode().IsRegular() {
			files = append(files, fileUse{fmt.Sprintf("word %d of the stdio command", i+1), arg})
		}
	}
	return files
}

// checkScenarioRun masks the scenario's secrets (before anything about it
// is written) and checks the files of a run of it with the command's
// outputs (-o and the renderings), as run and limits both do; a refusal is
// printed with the command's name.
func checkScenarioRun(ctx context.Context, cmd, path string, sc *scenarios.Scenario, output string, exports *exportFlags, stderr io.Writer) bool {
	addSecrets(ctx, sc)
	outputs := append([]fileUse{{"--output", output}}, exportFiles(exports, "")...)
	if err := checkRunFiles(path, sc, outputs); err != nil {
		fmt.Fprintf(stderr, "mcpchaos %s: %v\n", cmd, err)
		return false
	}
	return true
}
