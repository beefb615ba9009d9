package deploy

import (
	"bufio"
	"debug/elf"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// instruction is one Dockerfile instruction, continuation lines joined.
type instruction struct {
	line int    // where it starts
	cmd  string // upper case: FROM, RUN, COPY, ...
	args string
}

// stage is a build stage: its FROM image, its name (AS NAME) and the
// instructions after the FROM.
type stage struct {
	image, name string
	ins         []instruction
}

// readDockerfile parses the instructions of a Dockerfile into stages: what
// the test needs of the format, comments and continuation lines included.
func readDockerfile(path string) ([]stage, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var stages []stage
	sc := bufio.NewScanner(f)
	var cur strings.Builder
	start := 0
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if cur.Len() == 0 && (line == "" || strings.HasPrefix(line, "#")) {
			continue
		}
		if cur.Len() == 0 {
			start = n
		}
		body, more := strings.CutSuffix(line, `\`)
		cur.WriteString(body + " ")
		if more {
			continue
		}
		cmd, args, _ := strings.Cut(strings.TrimSpace(cur.String()), " ")
		cur.Reset()
		in := instruction{line: start, cmd: strings.ToUpper(cmd), args: strings.TrimSpace(args)}
		if in.cmd == "FROM" {
			words := strings.Fields(in.args)
			s := stage{image: words[0]}
			if len(words) == 3 && strings.EqualFold(words[1], "AS") {
				s.name = words[2]
			}
			stages = append(stages, s)
			continue
		}
		if len(stages) == 0 {
			return nil, fmt.Errorf("%s:%d: %s before the first FROM", path, start, in.cmd)
		}
		stages[len(stages)-1].ins = append(stages[len(stages)-1].ins, in)
	}
	return stages, sc.Err()
}

// shellWords splits a RUN command of plain words the way sh does, quotes
// included; anything a plain word list cannot hold (a pipe, a variable, a
// second command) is an error that quotes the command.
func shellWords(cmd string) ([]string, error) {
	var words []string
	var w strings.Builder
	inWord := false
	for i := 0; i < len(cmd); i++ {
		c := cmd[i]
		switch {
		case c == ' ' || c == '\t':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		case c == '"' || c == '\'':
			end := strings.IndexByte(cmd[i+1:], c)
			if end < 0 {
				return nil, fmt.Errorf("split %q: an unclosed quote", cmd)
			}
			w.WriteString(cmd[i+1 : i+1+end])
			i += end + 1
			inWord = true
		case strings.IndexByte(";&|<>$`()\\", c) >= 0:
			return nil, fmt.Errorf("split %q: %q is more than a list of words", cmd, c)
		default:
			w.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, w.String())
	}
	return words, nil
}

// goBuild is the `go build` of a RUN instruction: the variables set before
// it, and the go command's arguments.
type goBuild struct {
	env  []string
	args []string // "build", ...
}

// output returns the index of -o's value in args, or -1.
func (b goBuild) output() int {
	for i, a := range b.args {
		if a == "-o" && i+1 < len(b.args) {
			return i + 1
		}
	}
	return -1
}

// findGoBuild returns the stage's RUN that runs `go build`.
func findGoBuild(s stage) (goBuild, bool, error) {
	for _, in := range s.ins {
		if in.cmd != "RUN" || !strings.Contains(in.args, "go build") {
			continue
		}
		words, err := shellWords(in.args)
		if err != nil {
			return goBuild{}, false, fmt.Errorf("line %d: %w", in.line, err)
		}
		var b goBuild
		for len(words) > 0 && strings.Contains(words[0], "=") {
			b.env, words = append(b.env, words[0]), words[1:]
		}
		if len(words) < 2 || words[0] != "go" || words[1] != "build" {
			return goBuild{}, false, fmt.Errorf("line %d: %q does not run go build", in.line, in.args)
		}
		b.args = words[1:]
		return b, true, nil
	}
	return goBuild{}, false, nil
}

// last returns the arguments of the stage's last instruction cmd.
func (s stage) last(cmd string) (string, bool) {
	for i := len(s.ins) - 1; i >= 0; i-- {
		if s.ins[i].cmd == cmd {
			return s.ins[i].args, true
		}
	}
	return "", false
}

// image is what the test reads of a Dockerfile: the builder's go build
// and the path of the binary in the final image.
type image struct {
	build goBuild
	out   int    // index of -o's value in build.args
	entry string // the entry point, where the binary is copied to
}

// checkDockerfile checks what can be checked of a Dockerfile without a
// Docker engine: the builder stage builds with CGO_ENABLED=0; the final
// stage is distroless static or scratch, runs as a user that is not root,
// copies the built binary from the builder and runs it as its entry point.
func checkDockerfile(stages []stage) (image, []string) {
	var im image
	var problems []string
	if len(stages) < 2 {
		return im, []string{fmt.Sprintf("%d stages, want a builder and a final stage", len(stages))}
	}
	final := stages[len(stages)-1]
	if img := final.image; img != "scratch" && !strings.HasPrefix(img, "gcr.io/distroless/static") {
		problems = append(problems, fmt.Sprintf("the final stage is FROM %s, want gcr.io/distroless/static or scratch", img))
	}
	if user, ok := final.last("USER"); !ok || root(user) {
		problems = append(problems, fmt.Sprintf("the final stage runs as USER %q (set: %v), want a user that is not root", user, ok))
	}
	ep, _ := final.last("ENTRYPOINT")
	var entry []string
	if err := json.Unmarshal([]byte(ep), &entry); err != nil || len(entry) == 0 || filepath.Base(entry[0]) != "mcpchaos" {
		return im, append(problems, fmt.Sprintf("ENTRYPOINT %s: want the exec form running mcpchaos", ep))
	}
	im.entry = entry[0]
	copied, _ := final.last("COPY")
	from, src, dst, ok := copyFrom(copied)
	if !ok || dst != im.entry {
		return im, append(problems, fmt.Sprintf("COPY %s: want --from=STAGE SRC %s", copied, im.entry))
	}
	i := slices.IndexFunc(stages, func(s stage) bool { return s.name == from })
	if i < 0 {
		return im, append(problems, fmt.Sprintf("COPY --from=%s: no stage of that name", from))
	}
	b, ok, err := findGoBuild(stages[i])
	if err != nil || !ok {
		return im, append(problems, fmt.Sprintf("stage %s: no go build (%v)", from, err))
	}
	if !slices.Contains(b.env, "CGO_ENABLED=0") {
		problems = append(problems, fmt.Sprintf("go build with %q, want CGO_ENABLED=0", b.env))
	}
	if im.build, im.out = b, b.output(); im.out < 0 || b.args[im.out] != src {
		problems = append(problems, fmt.Sprintf("go build %q does not write %s, which the final stage copies", b.args, src))
	}
	return im, problems
}

// TestDockerfileChecks: checkDockerfile finds what is wrong in broken
// variants of deploy/Dockerfile, and nothing in it.
func TestDockerfileChecks(t *testing.T) {
	orig, err := os.ReadFile("Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, old, new, want string
	}{
		{name: "as it is"},
		{name: "cgo", old: "CGO_ENABLED=0", new: "CGO_ENABLED=1", want: "want CGO_ENABLED=0"},
		{name: "a full base image", old: "gcr.io/distroless/static-debian12:nonroot", new: "debian:12", want: "FROM debian:12"},
		{name: "root by uid", old: "USER 65532:65532", new: "USER 0:0", want: `USER "0:0"`},
		{name: "root by default", old: "USER 65532:65532", new: "", want: "(set: false)"},
		{name: "a shell entry point", old: `ENTRYPOINT ["/usr/local/bin/mcpchaos"]`, new: "ENTRYPOINT sh", want: "ENTRYPOINT sh"},
		{name: "another binary copied", old: "COPY --from=build /out/mcpchaos", new: "COPY --from=build /out/other", want: "does not write /out/other"},
		{name: "a shell pipeline", old: "go build -trimpath", new: "go build $FLAGS -trimpath", want: "more than a list of words"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			text := strings.Replace(string(orig), tt.old, tt.new, 1)
			if tt.old != "" && text == string(orig) {
				t.Fatalf("%q is not in the Dockerfile", tt.old)
			}
			path := filepath.Join(t.TempDir(), "Dockerfile")
			if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			stages, err := readDockerfile(path)
			if err != nil {
				t.Fatal(err)
			}
			_, problems := checkDockerfile(stages)
			found := slices.ContainsFunc(problems, func(p string) bool { return tt.want != "" && strings.Contains(p, tt.want) })
			if tt.want == "" && len(problems) > 0 || tt.want != "" && !found {
				t.Errorf("problems %q, want one with %q", problems, tt.want)
			}
		})
	}
}

// TestDockerfile runs the Dockerfile's own `go build` (read from the file,
// its output moved to a temporary directory) and finds the binary static —
// no program interpreter, no shared library needed — and running.
func TestDockerfile(t *testing.T) {
	stages, err := readDockerfile("Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	im, problems := checkDockerfile(stages)
	for _, p := range problems {
		t.Error(p)
	}
	if t.Failed() {
		return
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go command: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "mcpchaos")
	args := slices.Clone(im.build.args)
	args[im.out] = bin
	cmd := exec.Command(goTool, args...)
	cmd.Dir = ".." // the build context: the repository root
	cmd.Env = append(os.Environ(), im.build.env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatalf("the binary is not ELF: %v", err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Error("the binary has a program interpreter (PT_INTERP): it is linked dynamically")
		}
	}
	if libs, err := f.DynString(elf.DT_NEEDED); err != nil || len(libs) > 0 {
		t.Errorf("the binary needs shared libraries %q (%v), want none", libs, err)
	}
	if runtime.GOOS != "linux" {
		return // built for Linux, as the image runs it
	}
	v, err := exec.Command(bin, "version").CombinedOutput()
	if err != nil || !strings.HasPrefix(string(v), "mcpchaos ") {
		t.Errorf("%s version: %v\n%s", bin, err, v)
	}
}

// root reports whether a USER value (NAME or UID, with an optional
// :GROUP) is root.
func root(user string) bool {
	u, _, _ := strings.Cut(strings.TrimSpace(user), ":")
	if n, err := strconv.Atoi(u); err == nil {
		return n == 0
	}
	return u == "" || u == "root"
}

// copyFrom reads `COPY --from=STAGE SRC DST`.
func copyFrom(args string) (from, src, dst string, ok bool) {
	words := strings.Fields(args)
	if len(words) != 3 {
		return "", "", "", false
	}
	from, ok = strings.CutPrefix(words[0], "--from=")
	return from, words[1], words[2], ok
}
