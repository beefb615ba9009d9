package deploy

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
)

// checkMergeWait checks that the merge Job cannot wait for ever on a
// failed shard (the shards' Job has backoffLimit 0, so a failed shard's
// file never gets its trailer): activeDeadlineSeconds bounds the Job, and
// the init container's wait ends after WAIT_SECONDS, within it. It runs
// the wait's own script with sh over files of n shards: with two finished,
// one torn and one absent it fails at once (WAIT_SECONDS 0) naming the
// two missing; with every one finished it succeeds.
func checkMergeWait(t *testing.T, merge *batchv1.Job, n int) {
	t.Helper()
	deadline := merge.Spec.ActiveDeadlineSeconds
	if deadline == nil || *deadline <= 0 {
		t.Errorf("the merge Job has no activeDeadlineSeconds: a failed shard would leave it waiting for ever")
	}
	var wait *corev1.Container
	for i, c := range merge.Spec.Template.Spec.InitContainers {
		if c.Name == "wait-for-shards" {
			wait = &merge.Spec.Template.Spec.InitContainers[i]
		}
	}
	if wait == nil || len(wait.Command) != 3 || wait.Command[0] != "sh" {
		t.Fatalf("the merge Job has no wait-for-shards init container running sh -c SCRIPT")
	}
	limit := -1
	for _, e := range wait.Env {
		if e.Name == "WAIT_SECONDS" {
			limit, _ = strconv.Atoi(e.Value)
		}
	}
	if limit <= 0 || deadline != nil && int64(limit) >= *deadline {
		t.Errorf("WAIT_SECONDS %d: want a positive bound within activeDeadlineSeconds %v", limit, deadline)
	}
	script := wait.Command[2]
	var idx []string
	for i := range n {
		idx = append(idx, strconv.Itoa(i))
	}
	if want := "for i in " + strings.Join(idx, " ") + ";"; !strings.Contains(script, want) {
		t.Errorf("the wait does not name every shard: want %q in\n%s", want, script)
	}

	dir := t.TempDir()
	script = strings.ReplaceAll(script, "/results/", dir+"/")
	shard := func(i int, trailer bool) {
		var b bytes.Buffer
		z := gzip.NewWriter(&b)
		fmt.Fprintln(z, `{"type":"header"}`)
		if trailer {
			fmt.Fprintln(z, `{"type":"trailer"}`)
		}
		z.Close()
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("shard-%d.jsonl.gz", i)), b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run := func() (string, error) {
		cmd := exec.Command("sh", "-c", script)
		cmd.Env = append(os.Environ(), "WAIT_SECONDS=0")
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	for i := range n - 2 {
		shard(i, true)
	}
	shard(n-2, false) // still running, or failed
	out, err := run()
	var exit *exec.ExitError
	missing := fmt.Sprintf("shards %d %d not finished after 0s", n-2, n-1)
	if !errors.As(err, &exit) || exit.ExitCode() != 1 || !strings.Contains(out, missing) {
		t.Errorf("the wait with shards %d and %d missing: %v\n%s\nwant exit status 1 and %q", n-2, n-1, err, out, missing)
	}
	shard(n-2, true)
	shard(n-1, true)
	if out, err := run(); err != nil {
		t.Errorf("the wait with every shard finished: %v\n%s", err, out)
	}
}
