package scenarios

import (
	"strings"
	"testing"
)

// TestIDs: load.ids decodes with its defaults, and the combinations that
// cannot collide (one connection) or cannot be judged (a log probe) are
// errors that name the place.
func TestIDs(t *testing.T) {
	const head = "name: x\ncalls: [{tool: echo, arguments: {text: hi}}]\n"
	for _, tc := range []struct {
		name, src string
		want      IDs
		err       string
	}{
		{name: "default", src: "target: {builtin: {}}\nload: {rate: 1/1s, duration: 1s}\n"},
		{name: "colliding defaults to two connections", src: "target: {builtin: {}}\nload: {rate: 1/1s, duration: 1s, ids: {mode: colliding}}\n",
			want: IDs{Mode: IDsColliding, Connections: 2}},
		{name: "shuffled", src: "target: {builtin: {}}\nload: {rate: 1/1s, duration: 1s, ids: {mode: shuffled}}\n",
			want: IDs{Mode: IDsShuffled, Connections: 1}},
		{name: "stdio processes are the connections", src: "target: {stdio: {command: [x], processes: 2}}\nload: {rate: 1/1s, duration: 1s, ids: {mode: colliding}}\n",
			want: IDs{Mode: IDsColliding, Connections: 2}},
		{name: "one connection cannot collide", src: "target: {builtin: {}}\nload: {rate: 1/1s, duration: 1s, ids: {mode: colliding, connections: 1}}\n",
			err: "x.yaml:4:39: load.ids: colliding ids need at least two connections (1 here)"},
		{name: "one stdio process cannot collide", src: "target: {builtin: {transport: stdio}}\nload: {rate: 1/1s, duration: 1s, ids: {mode: colliding}}\n",
			err: "colliding ids need at least two connections (1 here)"},
		{name: "connections on stdio", src: "target: {stdio: {command: [x], processes: 2}}\nload: {rate: 1/1s, duration: 1s, ids: {mode: colliding, connections: 2}}\n",
			err: "load.ids.connections: does not apply to stdio targets"},
		{name: "unknown mode", src: "target: {builtin: {}}\nload: {rate: 1/1s, duration: 1s, ids: {mode: random}}\n",
			err: `invalid value "random"`},
		{name: "with a log probe", src: "target: {builtin: {}}\nload: {rate: 1/1s, duration: 1s, ids: {mode: colliding}}\norphans: {probes: [{log: {file: x.log, done: 'call (?P<id>\\d+) done'}}]}\n",
			err: "cannot be used with a log probe"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Parse("x.yaml", []byte(head+tc.src))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Errorf("error = %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := s.Load.IDs
			got.Pos = Pos{}
			if got != tc.want {
				t.Errorf("load.ids = %+v, want %+v", got, tc.want)
			}
		})
	}
}
