package probes

import "testing"

func TestAbove(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		v, baseline float64
		want        float64
	}{
		{"above", 5, 2, 3},
		{"at", 2, 2, 0},
		{"below", 1, 2, 0},
		{"negative baseline", 0, -1.5, 1.5},
	}
	for _, tt := range tests {
		if got := Above(tt.v, tt.baseline); got != tt.want {
			t.Errorf("%s: Above(%v, %v) = %v, want %v", tt.name, tt.v, tt.baseline, got, tt.want)
		}
	}
}

func TestLeftoverCPU(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name          string
		before, after float64
		want          float64
	}{
		{"busy", 1.5, 2.25, 0.75},
		{"quiet", 2, 2, 0},
		{"a process left the tree", 3, 1, 0},
	}
	for _, tt := range tests {
		got := LeftoverCPU(ProcessSample{CPUSeconds: tt.before, Threads: 3}, ProcessSample{CPUSeconds: tt.after, Children: 1})
		if got != tt.want {
			t.Errorf("%s: LeftoverCPU = %v, want %v", tt.name, got, tt.want)
		}
	}
}
