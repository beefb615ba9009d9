package probes

import (
	"slices"
	"strconv"
	"strings"
	"testing"
)

// statStart is statLine with a start time (field 22).
func statStart(pid int, comm string, state byte, ppid int, start int) string {
	f := strings.Fields(statLine(pid, comm, state, ppid, 0, 0, 0, 0, 1))
	// f[0] is the pid, f[1] the comm (no spaces here), f[n-1] field n.
	f[22-1] = strconv.Itoa(start)
	return strings.Join(f, " ") + "\n"
}

// TestLeftoverFake: the probe remembers the descendants it saw; once the
// root ended, those still running (same start time) are leftover with
// their own descendants, a reused pid is not, and with Adopt the
// subreaper's other children are orphans of the trees.
func TestLeftoverFake(t *testing.T) {
	t.Parallel()
	before := fakeProc(t, map[int]string{
		1:   statStart(1, "init", 'S', 0, 1),
		100: statStart(100, "server", 'S', 1, 10),
		101: statStart(101, "worker", 'S', 100, 11),  // will stay
		102: statStart(102, "sleeper", 'S', 100, 12), // its pid will be reused
		103: statStart(103, "done", 'S', 100, 13),    // will exit
	})
	p := NewProcess(func() []int { return []int{100} })
	p.proc = before
	if s, err := p.SampleTree(t.Context()); err != nil || s.Children != 3 {
		t.Fatalf("SampleTree = %+v, %v; want 3 children", s, err)
	}
	// The server exited: 101 was reparented to init and started a child;
	// 102 is another process now; 103 is a zombie; 500 is an orphan the
	// subreaper 50 adopted, and 60 is a process of its own.
	after := fakeProc(t, map[int]string{
		1:   statStart(1, "init", 'S', 0, 1),
		50:  statStart(50, "mcpchaos", 'S', 1, 5),
		60:  statStart(60, "server2", 'S', 50, 6),
		101: statStart(101, "worker", 'S', 1, 11),
		104: statStart(104, "grandchild", 'S', 101, 14),
		102: statStart(102, "other", 'S', 1, 99),
		103: statStart(103, "done", 'Z', 1, 13),
		500: statStart(500, "detached", 'S', 50, 50),
	})
	p.proc = after
	pids := func(l []LeftoverProcess) []int {
		var out []int
		for _, x := range l {
			out = append(out, x.PID)
		}
		slices.Sort(out)
		return out
	}
	got, err := p.Leftover(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{101, 104}; !slices.Equal(pids(got), want) {
		t.Errorf("Leftover = %v, want %v", got, want)
	}
	p.Adopt(50, func() []int { return []int{60} })
	got, err = p.Leftover(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{101, 104, 500}; !slices.Equal(pids(got), want) {
		t.Errorf("with Adopt, Leftover = %v, want %v", got, want)
	}
	for _, l := range got {
		if l.PID == 500 && (l.Command != "detached" || l.String() != "process 500 (detached)") {
			t.Errorf("leftover %+v: %q", l, l)
		}
	}
	// The adopted orphan is watched like a tree while the run goes on.
	p.pids = func() []int { return []int{60} }
	if s, err := p.SampleTree(t.Context()); err != nil || s.Processes != 2 {
		t.Errorf("SampleTree with an adopted orphan = %+v, %v; want server2 and the orphan", s, err)
	}
}
