package scenarios

import (
	"errors"
	"strings"
	"testing"
)

// TestLogProbeErrors: every mistake in a log probe is reported at its
// position, by validate and run alike (both decode through parse).
func TestLogProbeErrors(t *testing.T) {
	stdio := []string{
		"target: {builtin: {transport: stdio}}",
		"load: {rate: 10/1s, duration: 2s}",
		"calls: [{tool: echo}]",
	}
	withStdio := func(ls ...string) string { return lines(append(append([]string{}, stdio...), ls...)...) }
	tests := []struct {
		name string
		yaml string
		want []string
	}{
		{"regexp without group", withHead("orphans: {probes: [{log: {file: /tmp/x.log, done: 'call \\d+ done'}}]}"), []string{
			`x.yaml:4:51: orphans.probes[0].log.done: regular expression "call \\d+ done" has no group (?P<id>...) or (?P<token>...) naming the call (the request id or the progress token)`,
		}},
		{"regexp with another group", withHead("orphans:", "  probes:", "    - log:", "        file: /tmp/x.log", "        done: 'call (?P<req>\\d+) done'"), []string{
			`x.yaml:8:15: orphans.probes[0].log.done: regular expression "call (?P<req>\\d+) done" has no group (?P<id>...) or (?P<token>...) naming the call (the request id or the progress token)`,
		}},
		{"regexp that does not compile", withHead("orphans: {probes: [{log: {file: /tmp/x.log, done: 'call (?P<id>\\d+ done'}}]}"), []string{
			"x.yaml:4:51: orphans.probes[0].log.done: invalid regular expression \"call (?P<id>\\\\d+ done\": error parsing regexp: missing closing ): `call (?P<id>\\d+ done`",
		}},
		{"file and stderr", withStdio("orphans: {probes: [{log: {file: /tmp/x.log, stderr: true, done: '(?P<id>\\d+)'}}]}"), []string{
			`x.yaml:4:53: orphans.probes[0].log.stderr: file and stderr: true exclude each other (one log per probe)`,
		}},
		{"neither file nor stderr", withStdio("orphans: {probes: [{log: {stderr: false, done: '(?P<id>\\d+)'}}]}"), []string{
			`x.yaml:4:21: orphans.probes[0].log: want file: PATH or stderr: true`,
		}},
		{"stderr of an http target", withHead("orphans: {probes: [{log: {stderr: true, done: '(?P<id>\\d+)'}}]}"), []string{
			`x.yaml:4:35: orphans.probes[0].log.stderr: stderr: true needs a stdio target (mcpchaos reads the stderr only of servers it starts); use file: PATH`,
		}},
		{"missing done", withStdio("orphans: {probes: [{log: {stderr: true}}]}"), []string{
			`x.yaml:4:21: orphans.probes[0].log: missing required key "done"`,
		}},
		{"empty file", withHead("orphans: {probes: [{log: {file: '', done: '(?P<id>\\d+)'}}]}"), []string{
			`x.yaml:4:33: orphans.probes[0].log.file: must not be empty`,
		}},
		{"unset variable in file", withHead("orphans: {probes: [{log: {file: '${NOPE}/x.log', done: '(?P<id>\\d+)'}}]}"), []string{
			`x.yaml:4:33: orphans.probes[0].log.file: environment variable NOPE is not set (write ${NOPE:-default} for a default)`,
		}},
		{"unknown key", withStdio("orphans: {probes: [{log: {stderr: true, done: '(?P<id>\\d+)', regex: x}}]}"), []string{
			`x.yaml:4:62: orphans.probes[0].log: unknown key "regex" (known: file, stderr, done)`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parse("x.yaml", []byte(tt.yaml), testEnv)
			var list Errors
			if !errors.As(err, &list) {
				t.Fatalf("error %v is not Errors", err)
			}
			var got []string
			for _, e := range list {
				got = append(got, e.Error())
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("errors:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

func TestLogProbeDecoded(t *testing.T) {
	yaml := lines(
		"target: {stdio: {command: [srv]}}",
		"load: {rate: 10/1s, duration: 2s}",
		"calls: [{tool: echo}]",
		"orphans:",
		"  probes:",
		"    - log: {stderr: true, done: 'call (?P<id>\\d+) (done|cancelled)'}",
		"    - log: {file: '/var/log/${TOKEN}.log', done: 'end (?P<token>p\\d+)'}",
	)
	s, err := parse("x.yaml", []byte(yaml), testEnv)
	if err != nil {
		t.Fatal(err)
	}
	p := s.Orphans.Probes
	if len(p) != 2 || p[0].Kind() != "log" || !p[0].Log.Stderr || p[0].Log.Done != `call (?P<id>\d+) (done|cancelled)` ||
		p[1].Log.File != "/var/log/s3cret.log" || p[1].Log.Stderr {
		t.Errorf("probes %+v %+v", p[0].Log, p[1].Log)
	}
}
