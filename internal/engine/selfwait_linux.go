package engine

import "golang.org/x/sys/unix"

// cpusOf returns how many CPUs process pid may run on, 0 when unknown.
func cpusOf(pid int) int {
	var set unix.CPUSet
	if pid <= 0 || unix.SchedGetaffinity(pid, &set) != nil {
		return 0
	}
	return set.Count()
}
