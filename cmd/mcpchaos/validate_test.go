package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestValidateCommand(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	good := write("good.yaml", "name: quick\ntarget: {builtin: {}}\nload: {rate: 5/s, duration: 2s}\ncalls: [{tool: echo}, {tool: slow}]\nfaults: [{kind: cancel, after: 1s}]\nchecks: ['p99(call) < 1s']\n")
	bad := write("bad.yaml", "target: {builtin: {}}\nload: {rate: 5/x, duration: 2s}\ncalls: [{tool: echo, wieght: 2}]\n")
	proxyKind := write("proxykind.yaml", "target: {builtin: {}}\nload: {rate: 5/s, duration: 2s}\ncalls: [{tool: echo}]\nfaults: [{kind: throttle}]\n")
	missing := filepath.Join(dir, "missing.yaml")

	tests := []struct {
		name   string
		args   []string
		code   int
		stdout string
		stderr string // exact, or a prefix when it ends with "..."
	}{
		{"valid file", []string{good}, 0,
			"ok  " + good + " (name: quick, target: builtin (http), 2 calls, 1 fault, 1 check)\n", ""},
		{"invalid file", []string{bad}, 2, "",
			bad + `:2:14: load.rate: invalid rate "5/x": period "x" is not a duration or a unit such as s or 1m` + "\n" +
				bad + `:3:22: calls[0]: unknown key "wieght" (known: tool, weight, arguments, progress, task)` + "\n"},
		{"valid and missing", []string{good, missing}, 2,
			"ok  " + good + " (name: quick, target: builtin (http), 2 calls, 1 fault, 1 check)\n",
			missing + ": no such file or directory\n"},
		{"a fault of the proxy", []string{proxyKind}, 2, "",
			proxyKind + `:4:17: faults[0].kind: unknown fault kind "throttle" (throttle is a fault of mcpchaos proxy (a proxy file), not of a scenario; known: cancel, disconnect, cancel_race, stall_read, malformed, reissue, bad_retry, same_id_retry, fast_poll, notify_flood, cancel_unknown)` + "\n"},
		{"no files", nil, 2, "", "mcpchaos validate: no scenario files given\nusage: mcpchaos validate..."},
		{"bad flag", []string{"--nope"}, 2, "", "mcpchaos validate: unknown flag: --nope\nusage: mcpchaos validate..."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run(context.Background(), append([]string{"validate"}, tt.args...), &out, &errb)
			if code != tt.code {
				t.Errorf("exit code %d, want %d", code, tt.code)
			}
			if out.String() != tt.stdout {
				t.Errorf("stdout:\n%s\nwant:\n%s", out.String(), tt.stdout)
			}
			if prefix, ok := strings.CutSuffix(tt.stderr, "..."); ok {
				if !strings.HasPrefix(errb.String(), prefix) {
					t.Errorf("stderr:\n%s\nwant prefix:\n%s", errb.String(), prefix)
				}
			} else if errb.String() != tt.stderr {
				t.Errorf("stderr:\n%s\nwant:\n%s", errb.String(), tt.stderr)
			}
		})
	}

	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"validate", "--help"}, &out, &errb); code != 0 || !strings.Contains(out.String(), "FILE:LINE:COLUMN") || errb.Len() != 0 {
		t.Errorf("--help: code %d, stdout %q, stderr %q", code, out.String(), errb.String())
	}
}
