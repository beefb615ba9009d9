package main

import (
	"fmt"
	"strings"

	"github.com/mcpchaos/mcpchaos/internal/redact"
)

// urlWithRefs is the target URL as init writes it into a scenario: each
// secret of the URL (its password, or a lone user name, and the values of
// query parameters with secret-looking names: redact.URLSecretsAt) is a
// ${MCP_URL_...} reference, as secret headers are, and the rest is kept
// literal (escapeEnv). Each reference comes with a note that says what to
// export; the scenario expands it when it is read.
func urlWithRefs(raw string) (string, []string) {
	var b strings.Builder
	var notes []string
	used := map[string]int{}
	last := 0
	for _, sec := range redact.URLSecretsAt(raw) {
		b.WriteString(escapeEnv(raw[last:sec.Start]))
		what, base := "the password in the URL", "URL_PASSWORD"
		switch {
		case sec.Param != "":
			what, base = fmt.Sprintf("the URL's query parameter %q", sec.Param), "URL_"+sec.Param
		case raw[sec.Start-1] != ':':
			what, base = "the user name in the URL (a token)", "URL_USER"
		}
		env := "MCP_" + strings.ToUpper(nonAlnum.ReplaceAllString(base, "_"))
		if used[env]++; used[env] > 1 {
			env = fmt.Sprintf("%s_%d", env, used[env])
		}
		b.WriteString("${" + env + "}")
		notes = append(notes, fmt.Sprintf("%s is read from the environment variable %s: export it, as written in the URL, before validate and run", what, env))
		last = sec.End
	}
	b.WriteString(escapeEnv(raw[last:]))
	return b.String(), notes
}
