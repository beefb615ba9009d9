package main

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// TestCommandsDocumented: docs/commands.md has a section for every
// command, and documents every flag of tools and init.
func TestCommandsDocumented(t *testing.T) {
	b, err := os.ReadFile("../../docs/commands.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	for _, c := range commands() {
		if !strings.Contains(doc, "\n## `mcpchaos "+c.name+"`\n") {
			t.Errorf("docs/commands.md has no section \"## `mcpchaos %s`\"", c.name)
		}
	}
	sets := flagSets()
	for _, name := range []string{"tools", "init"} {
		sets[name].VisitAll(func(f *pflag.Flag) {
			if !regexp.MustCompile("--" + regexp.QuoteMeta(f.Name) + "[` ,]").MatchString(doc) {
				t.Errorf("docs/commands.md does not document %s --%s", name, f.Name)
			}
		})
	}
	if !strings.Contains(doc, "`--no-schema-check`") {
		t.Error("docs/commands.md does not document run --no-schema-check")
	}
}
