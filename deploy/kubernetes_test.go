package deploy

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// kustomization is the part of a Kustomization the test reads; decoded
// strictly, so a key it does not know fails.
type kustomization struct {
	APIVersion         string   `json:"apiVersion"`
	Kind               string   `json:"kind"`
	Namespace          string   `json:"namespace"`
	Resources          []string `json:"resources"`
	ConfigMapGenerator []struct {
		Name  string   `json:"name"`
		Files []string `json:"files"`
	} `json:"configMapGenerator"`
	GeneratorOptions struct {
		DisableNameSuffixHash bool `json:"disableNameSuffixHash"`
	} `json:"generatorOptions"`
	Images []struct {
		Name    string `json:"name"`
		NewName string `json:"newName"`
		NewTag  string `json:"newTag"`
	} `json:"images"`
}

// strict decodes a YAML manifest into v; an unknown field is an error.
func strict(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.UnmarshalStrict(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// TestKubernetesManifests decodes every manifest of deploy/kubernetes
// strictly into the Kubernetes API types, and checks the shards' Job: Indexed,
// completions and parallelism equal to --shards, the container running
// `mcpchaos run --shards`, results on the shared volume that the merge Job
// reads, one file per shard index; and the merge Job's wait for them,
// bounded (checkMergeWait).
func TestKubernetesManifests(t *testing.T) {
	k := readKustomization(t)
	jobs := decodeResources(t, k)
	shards, merge := jobs["mcpchaos-shards"], jobs["mcpchaos-merge"]
	if shards == nil || merge == nil {
		t.Fatalf("jobs %v, want mcpchaos-shards and mcpchaos-merge", slices.Collect(mapsKeys(jobs)))
	}
	n := checkShardsJob(t, shards, merge)
	checkMergeReports(t, merge, n)
	checkMergeWait(t, merge, n)
}

// readKustomization decodes deploy/kubernetes's kustomization and checks
// it lists every file of the directory.
func readKustomization(t *testing.T) kustomization {
	t.Helper()
	var k kustomization
	strict(t, "kubernetes/kustomization.yaml", &k)
	if k.Kind != "Kustomization" || len(k.Resources) == 0 {
		t.Fatalf("kustomization: kind %q, %d resources", k.Kind, len(k.Resources))
	}
	entries, err := os.ReadDir("kubernetes")
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{"kustomization.yaml": true}
	for _, r := range k.Resources {
		listed[r] = true
	}
	for _, g := range k.ConfigMapGenerator {
		for _, f := range g.Files {
			listed[f] = true
		}
	}
	for _, e := range entries {
		if !listed[e.Name()] {
			t.Errorf("kubernetes/%s is not in the kustomization", e.Name())
		}
	}
	return k
}

// decodeResources decodes each resource of the kustomization strictly
// into its API type and returns the Jobs by name.
func decodeResources(t *testing.T, k kustomization) map[string]*batchv1.Job {
	t.Helper()
	jobs := map[string]*batchv1.Job{}
	for _, r := range k.Resources {
		path := filepath.Join("kubernetes", r)
		var meta struct {
			Kind string `json:"kind"`
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := yaml.Unmarshal(b, &meta); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		switch meta.Kind {
		case "Job":
			var j batchv1.Job
			strict(t, path, &j)
			jobs[j.Name] = &j
		case "PersistentVolumeClaim":
			strict(t, path, &corev1.PersistentVolumeClaim{})
		case "Namespace":
			strict(t, path, &corev1.Namespace{})
		default:
			t.Errorf("%s: kind %q has no check here", path, meta.Kind)
		}
	}
	return jobs
}

// checkShardsJob checks the shards' Job: Indexed, completions and
// parallelism equal to --shards, the container running `mcpchaos run
// --shards`, one results file per shard index on the claim the merge Job
// reads. It returns the number of shards.
func checkShardsJob(t *testing.T, shards, merge *batchv1.Job) int {
	t.Helper()
	s := shards.Spec
	if s.CompletionMode == nil || *s.CompletionMode != batchv1.IndexedCompletion {
		t.Errorf("the shards' Job is not Indexed: completionMode %v", s.CompletionMode)
	}
	c := s.Template.Spec.Containers[0]
	args := append(append([]string{}, c.Command...), c.Args...)
	if len(args) == 0 || args[0] != "run" || !slices.ContainsFunc(args, func(a string) bool { return strings.HasPrefix(a, "--shards") }) {
		t.Fatalf("the shard container runs %q, want mcpchaos run --shards", args)
	}
	n := flagValue(t, args, "--shards")
	if s.Completions == nil || s.Parallelism == nil || int(*s.Completions) != n || int(*s.Parallelism) != n {
		t.Errorf("completions %v, parallelism %v, want both %d (--shards)", s.Completions, s.Parallelism, n)
	}
	if out := flagValue2(args, "--output"); !strings.Contains(out, "$(JOB_COMPLETION_INDEX)") || !strings.HasPrefix(out, "/results/") {
		t.Errorf("--output %q: want one file per shard index on /results", out)
	}
	if claim(shards) == "" || claim(shards) != claim(merge) {
		t.Errorf("the shards write to claim %q, the merge reads claim %q", claim(shards), claim(merge))
	}
	return n
}

// checkMergeReports checks that the merge Job's mcpchaos report names each
// of the n shards' files once, with --same-scenario.
func checkMergeReports(t *testing.T, merge *batchv1.Job, n int) {
	t.Helper()
	all := append(slices.Clone(merge.Spec.Template.Spec.InitContainers), merge.Spec.Template.Spec.Containers...)
	reports := 0
	for _, c := range all {
		if len(c.Args) == 0 || c.Args[0] != "report" {
			continue
		}
		reports++
		if !slices.Contains(c.Args, "--same-scenario") {
			t.Errorf("%s: mcpchaos report without --same-scenario", c.Name)
		}
		for i := range n {
			if !slices.Contains(c.Args, "/results/shard-"+strconv.Itoa(i)+".jsonl.gz") {
				t.Errorf("%s does not merge shard %d's file", c.Name, i)
			}
		}
	}
	if reports == 0 {
		t.Error("the merge Job runs no mcpchaos report")
	}
}

func mapsKeys(m map[string]*batchv1.Job) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// claim is the PVC the Job mounts at /results.
func claim(j *batchv1.Job) string {
	for _, v := range j.Spec.Template.Spec.Volumes {
		if v.PersistentVolumeClaim != nil {
			return v.PersistentVolumeClaim.ClaimName
		}
	}
	return ""
}

func flagValue2(args []string, name string) string {
	for i, a := range args {
		if v, ok := strings.CutPrefix(a, name+"="); ok {
			return v
		}
		if a == name && i+1 < len(args) {
			return args[i+1]
		}
	}
	return ""
}

func flagValue(t *testing.T, args []string, name string) int {
	t.Helper()
	n, err := strconv.Atoi(flagValue2(args, name))
	if err != nil || n < 1 {
		t.Fatalf("%s in %q: %v", name, args, err)
	}
	return n
}
