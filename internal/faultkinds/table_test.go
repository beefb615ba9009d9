package faultkinds

import (
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestTable: every kind has a unique snake_case name, an injector, and
// the text of what a correct peer does for each injector it has, and none
// for another.
func TestTable(t *testing.T) {
	name := regexp.MustCompile(`^[a-z]+(_[a-z]+)*$`)
	seen := map[string]bool{}
	for _, k := range Table {
		t.Run(k.Name, func(t *testing.T) {
			if !name.MatchString(k.Name) {
				t.Errorf("name %q is not snake_case", k.Name)
			}
			if seen[k.Name] {
				t.Errorf("kind %q is listed twice", k.Name)
			}
			seen[k.Name] = true
			if k.By == 0 || k.By&^(Client|Proxy) != 0 {
				t.Errorf("By = %b: want Client, Proxy or both", k.By)
			}
			if (k.By&Client != 0) != (k.Server != "") {
				t.Errorf("injected by the client: %v, but Server = %q", k.By&Client != 0, k.Server)
			}
			if (k.By&Proxy != 0) != (k.Client != "") {
				t.Errorf("injected by the proxy: %v, but Client = %q", k.By&Proxy != 0, k.Client)
			}
		})
	}
}

// TestNames: Names filters the table by injector and keeps its order, so
// the shared disconnect is second of a scenario's kinds and last of the
// proxy's; Injects and Lookup answer from the same table.
func TestNames(t *testing.T) {
	tests := []struct {
		name       string
		by         Injector
		first, end string
		at         int // where disconnect is
		count      int
	}{
		{"client", Client, Cancel, CancelUnknown, 1, 11},
		{"proxy", Proxy, ProgressEndless, Disconnect, 9, 10},
		{"either", Client | Proxy, Cancel, CancelUnknown, 10, len(Table)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Names(tc.by)
			if len(got) != tc.count || got[0] != tc.first || got[len(got)-1] != tc.end || slices.Index(got, Disconnect) != tc.at {
				t.Errorf("Names = %v: want %d kinds from %s to %s, disconnect at %d", got, tc.count, tc.first, tc.end, tc.at)
			}
			for _, n := range got {
				if !Injects(n, tc.by) {
					t.Errorf("Injects(%q) = false for a kind Names lists", n)
				}
			}
		})
	}
	if Injects(Throttle, Client) || Injects(Malformed, Proxy) || Injects("no_such_kind", Client|Proxy) {
		t.Error("Injects says yes to a kind the injector does not have")
	}
	if _, ok := Lookup("no_such_kind"); ok {
		t.Error("Lookup found an unknown kind")
	}
}

// TestElsewhere: a kind of the other injector gets a hint; a kind of this
// one or no kind at all gets none.
func TestElsewhere(t *testing.T) {
	tests := []struct {
		name, kind string
		by         Injector
		want       string
	}{
		{"proxy kind in a scenario", Throttle, Client, "throttle is a fault of mcpchaos proxy (a proxy file), not of a scenario; "},
		{"scenario kind in a proxy file", Malformed, Proxy, "malformed is a fault of a scenario (mcpchaos run), not of the proxy; "},
		{"shared kind", Disconnect, Proxy, ""},
		{"own kind", Cancel, Client, ""},
		{"no kind", "nope", Client, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Elsewhere(tc.kind, tc.by); got != tc.want {
				t.Errorf("Elsewhere(%q) = %q, want %q", tc.kind, got, tc.want)
			}
		})
	}
}

// TestDiffer: a builder table that matches the registry passes; one that
// lacks a kind, adds one, builds one twice or builds the other side's
// fails, naming it.
func TestDiffer(t *testing.T) {
	proxy := Names(Proxy)
	tests := []struct {
		name  string
		built []string
		want  string // in the error; "" for none
	}{
		{"the same set", proxy, ""},
		{"another order", append([]string{Disconnect}, proxy[:len(proxy)-1]...), ""},
		{"one missing", proxy[1:], "progress_endless is in the registry for this side but has no builder"},
		{"one extra", append(slices.Clone(proxy), "progress_backwards"), "progress_backwards is built but not in the registry"},
		{"the other side's", append(slices.Clone(proxy), Malformed), "malformed is built but not in the registry"},
		{"twice", append(slices.Clone(proxy), Throttle), "throttle is built twice"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := Differ(tc.built, Proxy)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("Differ = %v, want nil", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("Differ = %v, want an error containing %q", err, tc.want)
			}
		})
	}
}
