package scenarios

import (
	"fmt"
	"strings"
	"testing"
)

func TestAnchorsAndMerge(t *testing.T) {
	s := mustParse(t, "x.yaml", lines(
		"target: {builtin: {}}",
		"load: {rate: 5/s, duration: 10s}",
		"calls:",
		"  - &slow {tool: slow, arguments: &args {steps: 3}}",
		"  - {<<: *slow, weight: 2}",
		"  - {tool: other, arguments: *args}",
		"faults:",
		"  - &c {kind: cancel, after: 1s, probability: 0.5}",
		"  - {<<: [*c], probability: 0.25}",
		"checks: [!!str 'ok.count > 0']",
	))
	if len(s.Calls) != 3 || s.Calls[1].Tool != "slow" || s.Calls[1].Weight != 2 || s.Calls[1].Arguments["steps"] != int64(3) {
		t.Errorf("merged call = %+v", s.Calls[1])
	}
	if s.Calls[2].Arguments["steps"] != int64(3) {
		t.Errorf("aliased arguments = %+v", s.Calls[2].Arguments)
	}
	if s.Faults[1].Probability != 0.25 || s.Faults[1].After == nil {
		t.Errorf("merged fault = %+v", s.Faults[1])
	}
}

func TestAliasBomb(t *testing.T) {
	// Each anchor aliases the previous one ten times: 10^8 nodes if expanded.
	src := "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n"
	for i := 1; i < 8; i++ {
		prev := fmt.Sprintf("*a%d", i-1)
		src += fmt.Sprintf("a%d: &a%d [%s%s]\n", i, i, strings.Repeat(prev+", ", 9), prev)
	}
	src += "calls: [{tool: t, arguments: {bomb: *a7}}]\n"
	_, err := parse("x.yaml", []byte(src), testEnv)
	if err == nil || !strings.Contains(err.Error(), "calls[0].arguments.bomb") || !strings.Contains(err.Error(), "expands to more than") {
		t.Errorf("error = %v", err)
	}
}

func TestMergeBomb(t *testing.T) {
	src := "m0: &m0 {tool: t}\n"
	for i := 1; i < 9; i++ {
		prev := fmt.Sprintf("*m%d", i-1)
		src += fmt.Sprintf("m%d: &m%d {<<: [%s%s]}\n", i, i, strings.Repeat(prev+", ", 9), prev)
	}
	src += "calls: [*m8]\n"
	_, err := parse("x.yaml", []byte(src), testEnv)
	if err == nil || !strings.Contains(err.Error(), "merge keys expand to more than") {
		t.Errorf("error = %v", err)
	}
}

func TestNullMeansAbsent(t *testing.T) {
	s := mustParse(t, "x.yaml", lines(
		"name:",
		"seed: ~",
		"target: {builtin: ~}",
		"load: {rate: 5/s, duration: 10s, max_in_flight: null}",
		"calls: [{tool: echo, weight: ~}]",
		"orphans:",
		"progress:",
	))
	if s.Name != "x" || s.Seed != 1 || s.Load.MaxInFlight != DefaultMaxInFlight || s.Calls[0].Weight != 1 || s.Orphans.Grace != DefaultOrphanGrace {
		t.Errorf("nulls did not take defaults: %+v", s)
	}
}
