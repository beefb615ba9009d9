package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/pflag"

	"github.com/mcpchaos/mcpchaos/client"
	"github.com/mcpchaos/mcpchaos/internal/termsafe"
	"github.com/mcpchaos/mcpchaos/internal/toolschema"
)

// newToolsFlags is the command line of `mcpchaos tools`.
func newToolsFlags(stdout io.Writer) (fs *pflag.FlagSet, tf *targetFlags, asJSON *bool) {
	fs = newFlagSet("tools", stdout,
		"usage: mcpchaos tools [flags] TARGET",
		"",
		"Connects to an MCP server as run does (the era detected, or --protocol) and prints its",
		"name, version, era and transport, then each tool: its description, whether it says it",
		"sends progress, and its input schema's parameters (name, type, required, default, enum).",
		targetUsage,
		"Exit status: 0 listed; 2 bad input, or the server could not be reached or listed.",
		"")
	tf = addTargetFlags(fs)
	asJSON = fs.Bool("json", false, "print the raw tools/list result as JSON (several pages: {\"tools\": [every page's tools]})")
	return fs, tf, asJSON
}

// toolsCmd implements "mcpchaos tools TARGET": what a server offers.
func toolsCmd(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs, tf, asJSON := newToolsFlags(stdout)
	if code, ok := parseFlags(fs, args, stderr); !ok {
		return code
	}
	t, err := parseTarget(fs, tf)
	if err != nil {
		fmt.Fprintf(stderr, "mcpchaos tools: %v (see mcpchaos tools --help)\n", err)
		return exitUsage
	}
	t.addSecrets(ctx, true) // before anything about the target is printed
	c, list, err := t.listTools(ctx)
	if err != nil {
		return fail(stderr, "tools", err)
	}
	warnRejected(stderr, "mcpchaos tools", list.Rejected)
	if *asJSON {
		err = writeToolsJSON(stdout, list)
	} else {
		err = writeTools(stdout, serverInfo{Implementation: c.Server(), Era: c.Era(), Transport: c.Transport(), Target: t.String()}, list.Tools)
	}
	if err != nil {
		return fail(stderr, "tools", err)
	}
	return exitOK
}

// serverInfo is what the header of the tools listing says.
type serverInfo struct {
	client.Implementation
	Era       client.Era
	Transport string
	Target    string
	Tasks     bool // the server offers the tasks extension
}

// writeToolsJSON prints the tools/list result as the server sent it: the
// one page, indented; several pages as one object whose tools are every
// page's, in order.
func writeToolsJSON(w io.Writer, l *client.ToolList) error {
	raw := []byte(nil)
	if len(l.Pages) == 1 {
		raw = l.Pages[0]
	} else {
		tools := make([]json.RawMessage, len(l.All))
		for i, t := range l.All {
			tools[i] = t.Raw
		}
		var err error
		if raw, err = json.Marshal(map[string]any{"tools": tools}); err != nil {
			return fmt.Errorf("write the tool list: %w", err)
		}
	}
	var b bytes.Buffer
	if err := json.Indent(&b, raw, "", "  "); err != nil {
		return fmt.Errorf("write the tool list: %w", err)
	}
	b.WriteByte('\n')
	_, err := w.Write(termsafe.JSON(b.Bytes())) // the server's strings, DEL and C1 escaped
	return err
}

// writeTools prints the server and its tools for a person. What the
// server sent is printed escaped (termsafe.Escape: a control character
// shows as \x1b, a line feed in a name as \n), and what is written passes
// termsafe.Lines, so that no control character but the listing's own line
// feeds reaches the terminal.
func writeTools(w io.Writer, s serverInfo, tools []client.Tool) error {
	var b strings.Builder
	name := termsafe.Escape(s.Name)
	if name == "" {
		name = "(no name given)"
	}
	fmt.Fprintf(&b, "Server     %s %s\n", name, termsafe.Escape(s.Version))
	fmt.Fprintf(&b, "Era        %s\n", termsafe.Escape(string(s.Era)))
	fmt.Fprintf(&b, "Transport  %s   %s\n", s.Transport, termsafe.Escape(s.Target))
	fmt.Fprintf(&b, "Tools      %d\n", len(tools))
	for _, t := range tools {
		b.WriteString("\n")
		writeTool(&b, t)
	}
	_, err := io.WriteString(w, termsafe.Lines(b.String()))
	return err
}

// descWidth is where descriptions wrap.
const descWidth = 96

func writeTool(b *strings.Builder, t client.Tool) {
	b.WriteString(termsafe.Escape(t.Name))
	if t.Title != "" {
		b.WriteString(" — " + termsafe.Escape(t.Title))
	}
	b.WriteString("\n")
	for _, line := range wrap(t.Description, descWidth) {
		b.WriteString("  " + termsafe.Escape(line) + "\n")
	}
	if toolschema.SaysProgress(t) {
		b.WriteString("  progress: the tool says it sends progress\n")
	} else {
		b.WriteString("  progress: not stated\n")
	}
	s, err := toolschema.Compile(t.Name, t.InputSchema)
	if err != nil {
		fmt.Fprintf(b, "  input schema: %s\n", termsafe.Escape(err.Error()))
		return
	}
	params := s.Params()
	if len(params) == 0 {
		b.WriteString("  no parameters\n")
		return
	}
	var table strings.Builder
	tw := tabwriter.NewWriter(&table, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  parameter\ttype\trequired\tdefault\tenum\tdescription")
	for _, p := range params {
		req := "no"
		if p.Required {
			req = "yes"
		}
		cell := func(s string, n int) string { return clipCell(termsafe.Escape(s), n) }
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\n", termsafe.Escape(p.Name), dash(termsafe.Escape(p.Type)), req,
			dash(cell(p.Default, 40)), dash(cell(p.Enum, 40)), cell(oneLineText(p.Description), 60))
	}
	_ = tw.Flush()
	for _, line := range strings.Split(strings.TrimSuffix(table.String(), "\n"), "\n") {
		b.WriteString(strings.TrimRight(line, " ") + "\n")
	}
}

// wrap splits text into lines of at most width runes at spaces, one
// paragraph per original line; blank lines are dropped.
func wrap(text string, width int) []string {
	var out []string
	for _, para := range strings.Split(text, "\n") {
		line := ""
		for _, word := range strings.Fields(para) {
			if line != "" && len([]rune(line))+1+len([]rune(word)) > width {
				out = append(out, line)
				line = ""
			}
			if line != "" {
				line += " "
			}
			line += word
		}
		if line != "" {
			out = append(out, line)
		}
	}
	return out
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// clipCell shortens a table cell to n runes.
func clipCell(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

func oneLineText(s string) string { return strings.Join(strings.Fields(s), " ") }
