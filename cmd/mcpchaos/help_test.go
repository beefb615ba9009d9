package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestHelpCommand: "help COMMAND" prints what "COMMAND --help" prints;
// "help" alone the list; a misspelt name is suggested.
func TestHelpCommand(t *testing.T) {
	t.Parallel()
	for _, c := range commands() {
		t.Run(c.name, func(t *testing.T) {
			code, viaHelp, stderr := runCLI(t, context.Background(), "help", c.name)
			if code != 0 || stderr != "" {
				t.Fatalf("help %s: exit %d, stderr %q", c.name, code, stderr)
			}
			_, viaFlag, _ := runCLI(t, context.Background(), c.name, "--help")
			if viaHelp != viaFlag || !strings.Contains(viaHelp, "usage: mcpchaos "+c.name) {
				t.Errorf("help %s printed\n%s\nwhile %s --help printed\n%s", c.name, viaHelp, c.name, viaFlag)
			}
		})
	}
	if code, stdout, _ := runCLI(t, context.Background(), "help"); code != 0 || !strings.Contains(stdout, "usage: mcpchaos COMMAND") {
		t.Errorf("help: exit %d\n%s", code, stdout)
	}
	for _, args := range [][]string{{"help", "tols"}, {"tols"}} {
		code, _, stderr := runCLI(t, context.Background(), args...)
		if code != 2 || !strings.Contains(stderr, `unknown command "tols" (did you mean "tools"?)`) {
			t.Errorf("%v: exit %d, stderr %q", args, code, stderr)
		}
	}
}

// TestVersion prints the version and what the build recorded. The test
// binary has no VCS stamp, so the revision is said to be unknown; the
// real binary built from a clone says the module is (devel).
func TestVersion(t *testing.T) {
	t.Parallel()
	code, stdout, _ := runCLI(t, context.Background(), "version")
	if code != 0 || !strings.HasPrefix(stdout, "mcpchaos "+version+"\n") || !strings.Contains(stdout, "\nrevision  ") || !strings.Contains(stdout, "\ngo        go1.") {
		t.Errorf("version: exit %d\n%s", code, stdout)
	}
	out, err := exec.Command(bin.Need(t), "version").Output()
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^module    github.com/mcpchaos/mcpchaos \S+$`).Match(out) {
		t.Errorf("the binary's version does not name its module:\n%s", out)
	}
	if code, _, stderr := runCLI(t, context.Background(), "version", "extra"); code != 2 || !strings.Contains(stderr, `"extra"`) {
		t.Errorf("version extra: exit %d, stderr %q", code, stderr)
	}
}

func TestRevision(t *testing.T) {
	tests := []struct {
		name     string
		settings map[string]string
		want     string
	}{
		{name: "none", want: "unknown (not recorded in this build)"},
		{name: "clean", settings: map[string]string{"vcs.revision": "abc123", "vcs.time": "2026-12-03T08:00:00Z", "vcs.modified": "false"},
			want: "abc123 2026-12-03T08:00:00Z"},
		{name: "modified", settings: map[string]string{"vcs.revision": "abc123", "vcs.modified": "true"}, want: "abc123 (modified)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s []debug.BuildSetting
			for k, v := range tt.settings {
				s = append(s, debug.BuildSetting{Key: k, Value: v})
			}
			if got := revision(s); got != tt.want {
				t.Errorf("revision = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestCompletionScripts: each script names every command and every flag,
// and the shells accept it: bash completes commands, flags, a command's
// words and files; zsh and fish parse it (when installed).
func TestCompletionScripts(t *testing.T) {
	t.Parallel()
	scripts := completionScripts(t)
	dir := t.TempDir()
	for _, f := range []string{"storm.yaml", "stress.yaml"} {
		if err := os.WriteFile(filepath.Join(dir, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	script := filepath.Join(dir, "mcpchaos.bash")
	if err := os.WriteFile(script, []byte(scripts["bash"]), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ line, want string }{
		{"mcpchaos to", "tools"},
		{"mcpchaos run --no-", "--no-fail-on-violation --no-schema-check"},
		{"mcpchaos run st", "storm.yaml stress.yaml"},
		{"mcpchaos run --summary-json sto", "storm.yaml"},
		{"mcpchaos completion ", "bash fish zsh"},
		{"mcpchaos help in", "init"},
		{"mcpchaos tools --pro", "--protocol"},
		{"mcpchaos serve st", ""},
	} {
		if got := bashComplete(t, dir, script, tt.line); got != tt.want {
			t.Errorf("bash completes %q to %q, want %q", tt.line, got, tt.want)
		}
	}
	checkShellScripts(t, dir, scripts)
}

// completionScripts prints the completion script of every shell, checks
// each names every command and flag and that an unknown shell is refused,
// and returns them by shell.
func completionScripts(t *testing.T) map[string]string {
	t.Helper()
	scripts := map[string]string{}
	for _, sh := range completionShells {
		code, stdout, stderr := runCLI(t, context.Background(), "completion", sh)
		if code != 0 {
			t.Fatalf("completion %s: exit %d: %s", sh, code, stderr)
		}
		scripts[sh] = stdout
		for _, c := range completionCommands() {
			if !strings.Contains(stdout, c.name) {
				t.Errorf("%s script lacks command %s", sh, c.name)
			}
			for _, f := range c.flags {
				if !strings.Contains(stdout, f.long) {
					t.Errorf("%s script lacks %s --%s", sh, c.name, f.long)
				}
			}
		}
	}
	if code, _, stderr := runCLI(t, context.Background(), "completion", "tcsh"); code != 2 || !strings.Contains(stderr, `"tcsh"`) {
		t.Errorf("completion tcsh: exit %d, stderr %q", code, stderr)
	}
	return scripts
}

// bashComplete completes line with the bash completion script (a path), run
// in dir: COMP_WORDS from the words of line, the last one the word being
// completed.
func bashComplete(t *testing.T, dir, script, line string) string {
	t.Helper()
	words := strings.Fields(line)
	if strings.HasSuffix(line, " ") {
		words = append(words, "")
	}
	quoted := make([]string, len(words))
	for i, w := range words {
		quoted[i] = "'" + w + "'"
	}
	cmd := exec.Command("bash", "--norc", "--noprofile", "-c",
		"source "+script+"; COMP_WORDS=("+strings.Join(quoted, " ")+"); COMP_CWORD="+
			strconv.Itoa(len(words)-1)+"; _mcpchaos; printf '%s\\n' \"${COMPREPLY[@]}\"")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("bash completion of %q: %v\n%s", line, err, out)
	}
	got := strings.Fields(string(out))
	slices.Sort(got)
	return strings.Join(got, " ")
}

// checkShellScripts has zsh and fish, where installed, parse their scripts,
// and fish complete a command and a shell name.
func checkShellScripts(t *testing.T, dir string, scripts map[string]string) {
	t.Helper()
	for sh, check := range map[string][]string{"zsh": {"zsh", "-n"}, "fish": {"fish", "--no-execute"}} {
		if _, err := exec.LookPath(check[0]); err != nil {
			t.Logf("%s is not installed: its script is not parsed", sh)
			continue
		}
		path := filepath.Join(dir, "mcpchaos."+sh)
		if err := os.WriteFile(path, []byte(scripts[sh]), 0o644); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command(check[0], append(check[1:], path)...).CombinedOutput(); err != nil {
			t.Errorf("%s does not accept its script: %v\n%s", sh, err, out)
		}
		if sh == "fish" {
			out, err := exec.Command("fish", "--no-config", "-c", "source "+path+"; complete -C 'mcpchaos to'; complete -C 'mcpchaos completion '").CombinedOutput()
			if got := strings.Fields(string(out)); err != nil || len(got) < 4 || got[0] != "tools" || !slices.Contains(got, "zsh") {
				t.Errorf("fish completes to %q (%v)", out, err)
			}
		}
	}
}
