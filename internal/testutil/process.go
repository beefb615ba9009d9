package testutil

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// ProcessRunning reports whether pid is a live process on Linux: listed in
// /proc and not a zombie.
func ProcessRunning(pid int) bool {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')') // the state follows "(comm) "
	return i > 0 && i+2 < len(s) && s[i+2] != 'Z' && s[i+2] != 'X'
}
