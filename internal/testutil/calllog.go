package testutil

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"testing"
)

// CallsDone reads the built-in target's log_calls file: the request ids
// of the calls it logged done (`call ID done`).
func CallsDone(t testing.TB, path string) map[int64]bool {
	t.Helper()
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	done := map[int64]bool{}
	sc := bufio.NewScanner(fh)
	for sc.Scan() {
		var id int64
		if _, err := fmt.Sscanf(sc.Text(), "call %d done", &id); err == nil && strings.HasSuffix(sc.Text(), " done") {
			done[id] = true
		}
	}
	return done
}
