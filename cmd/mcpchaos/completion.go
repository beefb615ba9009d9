package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/pflag"
)

// Shell completion scripts, written from the command table (commands) and
// each command's flag set, so they stay in step with the commands: no
// completion framework, three small generators.

// completionShells are the shells there is a script for.
var completionShells = []string{"bash", "zsh", "fish"}

// completionCmd implements "mcpchaos completion bash|zsh|fish".
func completionCmd(_ context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 1 && (args[0] == "-h" || args[0] == "--help") {
		fmt.Fprint(stdout, `usage: mcpchaos completion bash|zsh|fish

Prints a completion script for the shell: commands, their flags, and the
files, commands and shells they take. Load it with
  bash:  source <(mcpchaos completion bash)     (or save it in /etc/bash_completion.d/)
  zsh:   source <(mcpchaos completion zsh)      (after compinit; or save it as _mcpchaos in $fpath)
  fish:  mcpchaos completion fish | source      (or save it in ~/.config/fish/completions/mcpchaos.fish)
`)
		return exitOK
	}
	if len(args) != 1 || !slices.Contains(completionShells, args[0]) {
		fmt.Fprintf(stderr, "mcpchaos completion: want one shell, bash, zsh or fish; got %q\n", strings.Join(args, " "))
		return exitUsage
	}
	cmds := completionCommands()
	var script string
	switch args[0] {
	case "bash":
		script = bashCompletion(cmds)
	case "zsh":
		script = zshCompletion(cmds)
	case "fish":
		script = fishCompletion(cmds)
	}
	fmt.Fprint(stdout, script)
	return exitOK
}

// compCommand is what a script knows of one command.
type compCommand struct {
	name, summary string
	flags         []compFlag
	// words are the values of its first argument (help: the commands;
	// completion: the shells); nil with files false: nothing to offer.
	words []string
	files bool // its arguments are files (scenarios, results)
}

// compFlag is one flag.
type compFlag struct {
	long, short string
	usage       string
	value       string // the value's name ("FILE", "RATE"); "" for a switch
}

// flagSets returns the flag sets of the commands that have flags beyond
// --help. A new command with flags adds its flag set here.
func flagSets() map[string]*pflag.FlagSet {
	run, _ := newRunFlags(io.Discard)
	serve, _ := newServeFlags(io.Discard)
	tools, _, _ := newToolsFlags(io.Discard)
	initFS, _ := newInitFlags(io.Discard)
	proxyFS, _ := newProxyFlags(io.Discard)
	return map[string]*pflag.FlagSet{"run": run, "serve": serve, "tools": tools, "init": initFS, "proxy": proxyFS}
}

// noFileArgs are the commands whose arguments are not files.
var noFileArgs = []string{"serve", "tools", "init", "version"}

func completionCommands() []compCommand {
	sets := flagSets()
	var names []string
	for _, c := range commands() {
		names = append(names, c.name)
	}
	var out []compCommand
	for _, c := range commands() {
		cc := compCommand{name: c.name, summary: c.summary, files: !slices.Contains(noFileArgs, c.name)}
		switch c.name {
		case "help":
			cc.words, cc.files = names, false
		case "completion":
			cc.words, cc.files = completionShells, false
		}
		if fs := sets[c.name]; fs != nil {
			fs.VisitAll(func(f *pflag.Flag) {
				if f.Hidden {
					return
				}
				name, usage := pflag.UnquoteUsage(f)
				if f.NoOptDefVal != "" || f.Value.Type() == "bool" {
					name = ""
				}
				cc.flags = append(cc.flags, compFlag{long: f.Name, short: f.Shorthand, usage: oneLineText(usage), value: name})
			})
		}
		cc.flags = append(cc.flags, compFlag{long: "help", short: "h", usage: "print the command's usage"})
		out = append(out, cc)
	}
	return out
}

func bashCompletion(cmds []compCommand) string {
	var b strings.Builder
	names := make([]string, len(cmds))
	for i, c := range cmds {
		names[i] = c.name
	}
	b.WriteString(`# bash completion for mcpchaos, written by "mcpchaos completion bash".
# Load it with: source <(mcpchaos completion bash)
_mcpchaos() {
    local cur="${COMP_WORDS[COMP_CWORD]}" prev="${COMP_WORDS[COMP_CWORD-1]}"
    local flags="" valued="" words="" files=1
    COMPREPLY=()
    if [[ $COMP_CWORD -eq 1 ]]; then
        COMPREPLY=($(compgen -W "` + strings.Join(names, " ") + `" -- "$cur"))
        return 0
    fi
    case "${COMP_WORDS[1]}" in
`)
	for _, c := range cmds {
		var all, valued []string
		for _, f := range c.flags {
			opts := []string{"--" + f.long}
			if f.short != "" {
				opts = append(opts, "-"+f.short)
			}
			all = append(all, opts...)
			if f.value != "" {
				valued = append(valued, opts...)
			}
		}
		files := 0
		if c.files {
			files = 1
		}
		fmt.Fprintf(&b, "        %s) flags=%q; valued=%q; words=%q; files=%d ;;\n", c.name,
			strings.Join(all, " "), strings.Join(valued, " "), strings.Join(c.words, " "), files)
	}
	b.WriteString(`    esac
    if [[ -n $valued && " $valued " == *" $prev "* ]]; then
        COMPREPLY=($(compgen -f -- "$cur"))
    elif [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$flags" -- "$cur"))
    elif [[ -n $words ]]; then
        COMPREPLY=($(compgen -W "$words" -- "$cur"))
    elif [[ $files -eq 1 ]]; then
        COMPREPLY=($(compgen -f -- "$cur"))
    fi
    return 0
}
complete -o filenames -F _mcpchaos mcpchaos
`)
	return b.String()
}

func zshCompletion(cmds []compCommand) string {
	var b strings.Builder
	b.WriteString(`#compdef mcpchaos
# zsh completion for mcpchaos, written by "mcpchaos completion zsh".
# Load it with: source <(mcpchaos completion zsh)   (after compinit)
_mcpchaos() {
  local -a commands
  commands=(
`)
	for _, c := range cmds {
		fmt.Fprintf(&b, "    %s\n", zshQuote(c.name+":"+c.summary))
	}
	b.WriteString(`  )
  if (( CURRENT == 2 )); then
    _describe -t commands 'mcpchaos command' commands
    return
  fi
  local cmd=$words[2]
  shift words
  (( CURRENT-- ))
  case $cmd in
`)
	for _, c := range cmds {
		fmt.Fprintf(&b, "    %s)\n      _arguments -s", c.name)
		for _, f := range c.flags {
			desc := "[" + zshBrackets(f.usage) + "]"
			val := ""
			if f.value != "" {
				val = ":" + zshBrackets(f.value) + ":_files"
			}
			if f.short != "" {
				fmt.Fprintf(&b, " \\\n        %s{-%s,--%s}%s", zshQuote("(-"+f.short+" --"+f.long+")"), f.short, f.long, zshQuote(desc+val))
			} else {
				fmt.Fprintf(&b, " \\\n        %s", zshQuote("--"+f.long+desc+val))
			}
		}
		switch {
		case c.words != nil:
			fmt.Fprintf(&b, " \\\n        %s", zshQuote("1:value:("+strings.Join(c.words, " ")+")"))
		case c.files:
			fmt.Fprintf(&b, " \\\n        %s", zshQuote("*:file:_files"))
		}
		b.WriteString("\n      ;;\n")
	}
	b.WriteString(`  esac
}
if [[ $zsh_eval_context[-1] == loadautofunc ]]; then
  _mcpchaos "$@"
else
  compdef _mcpchaos mcpchaos
fi
`)
	return b.String()
}

// zshQuote single-quotes s for zsh.
func zshQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// zshBrackets escapes what ends an _arguments description or value name.
func zshBrackets(s string) string {
	return strings.NewReplacer(`\`, `\\`, "[", `\[`, "]", `\]`, ":", `\:`).Replace(s)
}

func fishCompletion(cmds []compCommand) string {
	var b strings.Builder
	b.WriteString(`# fish completion for mcpchaos, written by "mcpchaos completion fish".
# Load it with: mcpchaos completion fish | source
complete -c mcpchaos -f
`)
	for _, c := range cmds {
		fmt.Fprintf(&b, "complete -c mcpchaos -n __fish_use_subcommand -a %s -d %s\n", c.name, fishQuote(c.summary))
	}
	for _, c := range cmds {
		cond := fishQuote("__fish_seen_subcommand_from " + c.name)
		for _, f := range c.flags {
			fmt.Fprintf(&b, "complete -c mcpchaos -n %s -l %s", cond, f.long)
			if f.short != "" {
				fmt.Fprintf(&b, " -s %s", f.short)
			}
			if f.value != "" {
				b.WriteString(" -r -F")
			}
			fmt.Fprintf(&b, " -d %s\n", fishQuote(f.usage))
		}
		switch {
		case c.words != nil:
			fmt.Fprintf(&b, "complete -c mcpchaos -n %s -a %s\n", cond, fishQuote(strings.Join(c.words, " ")))
		case c.files:
			fmt.Fprintf(&b, "complete -c mcpchaos -n %s -F\n", cond)
		}
	}
	return b.String()
}

// fishQuote single-quotes s for fish.
func fishQuote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, "'", `\'`).Replace(s) + "'"
}
