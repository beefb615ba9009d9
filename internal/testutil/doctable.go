package testutil

import (
	"os"
	"strings"
	"testing"
)

// DocRow is one row of a Markdown table in the docs: Key is the first
// backquoted text of its first cell, Cells every cell, trimmed.
type DocRow struct {
	Key   string
	Cells []string
}

// DocTableRows reads every table of the Markdown file at path whose header
// line starts with header and returns their rows whose first cell starts
// with a backquote, in file order. Docs tables that a test holds to a
// table of the code (fault kinds, outcomes) read their rows here.
func DocTableRows(t testing.TB, path, header string) []DocRow {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read the docs table: %v", err)
	}
	var rows []DocRow
	inTable := false
	for line := range strings.Lines(string(b)) {
		line = strings.TrimRight(line, "\r\n")
		switch {
		case strings.HasPrefix(line, header):
			inTable = true
		case !strings.HasPrefix(line, "|"):
			inTable = false
		case inTable && strings.HasPrefix(line, "| `"):
			cells := strings.Split(strings.TrimSuffix(strings.TrimPrefix(line, "| "), " |"), " | ")
			key, _, _ := strings.Cut(strings.TrimPrefix(cells[0], "`"), "`")
			rows = append(rows, DocRow{Key: key, Cells: cells})
		}
	}
	return rows
}
