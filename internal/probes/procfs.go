package probes

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"unsafe"
)

// procStat is what a process probe reads from /proc/PID/stat.
type procStat struct {
	pid     int
	ppid    int
	state   byte  // R, S, D, Z, X, ...
	ticks   int64 // utime + stime + cutime + cstime
	threads int
	start   uint64 // starttime: with pid, names a process across pid reuse
	comm    string
}

// errNoProcess is returned by readStat for a process that does not exist
// (or vanished while being read).
var errNoProcess = errors.New("no such process")

// readStat reads and parses proc/PID/stat.
func readStat(proc string, pid int) (procStat, error) {
	b, err := os.ReadFile(filepath.Join(proc, strconv.Itoa(pid), "stat"))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ESRCH) {
			return procStat{}, errNoProcess
		}
		return procStat{}, err
	}
	st, err := parseStat(b)
	if err != nil {
		return procStat{}, fmt.Errorf("parse %s/%d/stat: %w", proc, pid, err)
	}
	return st, nil
}

// parseStat parses one /proc/PID/stat line (proc(5)):
//
//	pid (comm) state ppid ... utime(14) stime(15) cutime(16) cstime(17) ... num_threads(20) itrealvalue(21) starttime(22) ...
//
// comm may hold spaces and parentheses, so the fields after it are found
// from the last ')'.
func parseStat(b []byte) (procStat, error) {
	open := bytes.IndexByte(b, '(')
	end := bytes.LastIndexByte(b, ')')
	if open < 1 || end < open {
		return procStat{}, fmt.Errorf("no (comm) in %q", clip(b))
	}
	var st procStat
	pid, err := strconv.Atoi(string(bytes.TrimSpace(b[:open])))
	if err != nil {
		return procStat{}, fmt.Errorf("pid in %q: %w", clip(b), err)
	}
	st.pid = pid
	st.comm = string(b[open+1 : end])
	// fields[0] is field 3 (state), so field n is fields[n-3].
	fields := bytes.Fields(b[end+1:])
	if len(fields) < 20 {
		return procStat{}, fmt.Errorf("%d fields after (comm) in %q, want at least 20", len(fields), clip(b))
	}
	if len(fields[0]) != 1 {
		return procStat{}, fmt.Errorf("state %q", fields[0])
	}
	st.state = fields[0][0]
	num := func(n int) (int64, error) {
		v, err := strconv.ParseInt(string(fields[n-3]), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("field %d in %q: %w", n, clip(b), err)
		}
		return v, nil
	}
	ppid, err := num(4)
	if err != nil {
		return procStat{}, err
	}
	st.ppid = int(ppid)
	for _, n := range []int{14, 15, 16, 17} {
		v, err := num(n)
		if err != nil {
			return procStat{}, err
		}
		st.ticks += v
	}
	threads, err := num(20)
	if err != nil {
		return procStat{}, err
	}
	st.threads = int(threads)
	start, err := num(22)
	if err != nil {
		return procStat{}, err
	}
	st.start = uint64(start)
	return st, nil
}

func clip(b []byte) []byte {
	if len(b) > 120 {
		return b[:120]
	}
	return b
}

// scanProc reads the stat of every process under proc, skipping those
// that vanish while it reads. ctx is checked between processes.
func scanProc(ctx context.Context, proc string) (map[int]procStat, error) {
	entries, err := os.ReadDir(proc)
	if err != nil {
		return nil, fmt.Errorf("list processes: %w", err)
	}
	all := make(map[int]procStat, len(entries))
	for i, e := range entries {
		if i%64 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("list processes: %w", err)
			}
		}
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid <= 0 {
			continue // not a process directory
		}
		st, err := readStat(proc, pid)
		if errors.Is(err, errNoProcess) {
			continue // exited since ReadDir
		}
		if err != nil {
			return nil, err
		}
		all[pid] = st
	}
	return all, nil
}

// clockTicks is the kernel's USER_HZ, the unit of the times in
// /proc/PID/stat: what sysconf(_SC_CLK_TCK) returns. glibc takes it from
// the AT_CLKTCK entry of the auxiliary vector; so do we, from
// /proc/self/auxv, without cgo. It is 100 on every Linux architecture.
var clockTicks = sync.OnceValue(func() float64 {
	if hz := auxvClockTicks("/proc/self/auxv"); hz > 0 {
		return float64(hz)
	}
	return 100
})

// auxvClockTicks returns AT_CLKTCK from an auxv file of this process's
// word size and byte order, or 0.
func auxvClockTicks(path string) uint64 {
	const atNull, atClkTck = 0, 17
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	word := int(unsafe.Sizeof(uintptr(0)))
	read := func(p []byte) uint64 {
		if word == 4 {
			return uint64(binary.NativeEndian.Uint32(p))
		}
		return binary.NativeEndian.Uint64(p)
	}
	for i := 0; i+2*word <= len(b); i += 2 * word {
		switch read(b[i:]) {
		case atNull:
			return 0
		case atClkTck:
			return read(b[i+word:])
		}
	}
	return 0
}
