// Package faultkinds is the one registry of fault kinds: each kind's name,
// who can inject it (mcpchaos run, through its own client, from a
// scenario's faults; mcpchaos proxy, toward a client, from a proxy file's
// faults; or both) and what a correct peer does under it. Package faults
// builds the kinds a scenario names and package proxy the kinds a proxy
// file names; both take the names, their order and the list of known
// kinds from here, and a test in each fails when its builders and this
// table differ. docs/faults.md and docs/proxy.md are held to the texts.
// Standard library only.
package faultkinds

import (
	"fmt"
	"slices"
	"strings"
)

// Injector is who injects a fault kind: a bit set of Client and Proxy.
type Injector uint8

const (
	// Client: mcpchaos run injects it, through its own client, into its
	// calls to a server (a scenario's faults; package faults).
	Client Injector = 1 << iota
	// Proxy: mcpchaos proxy injects it into the calls of a client that
	// goes through it (a proxy file's faults; package proxy).
	Proxy
)

// The kinds' names, as a scenario or a proxy file writes them.
const (
	Cancel                = "cancel"
	Disconnect            = "disconnect"
	CancelRace            = "cancel_race"
	StallRead             = "stall_read"
	Malformed             = "malformed"
	Reissue               = "reissue"
	BadRetry              = "bad_retry"
	SameIDRetry           = "same_id_retry"
	FastPoll              = "fast_poll"
	NotifyFlood           = "notify_flood"
	CancelUnknown         = "cancel_unknown"
	ProgressEndless       = "progress_endless"
	Throttle              = "throttle"
	DelayResponse         = "delay_response"
	DropResponse          = "drop_response"
	ServerCancel          = "server_cancel"
	ProgressFlood         = "progress_flood"
	ProgressStall         = "progress_stall"
	ProgressRegress       = "progress_regress"
	ProgressAfterResponse = "progress_after_response"
)

// Kind is one fault kind of the registry.
type Kind struct {
	Name string
	By   Injector // who can inject it
	// Server is what a correct server does under the kind injected by
	// mcpchaos run (docs/faults.md's column "a correct server", as
	// written there); "" when By lacks Client.
	Server string
	// Client is what a correct client does under the kind injected by
	// mcpchaos proxy (in its section of docs/proxy.md); "" when By lacks
	// Proxy.
	Client string
}

// Table is every fault kind, in documentation order: the Client kinds in
// the order of docs/faults.md's table (the order `known: ...` lists them
// in an error), the Proxy kinds in the order of docs/proxy.md's sections.
// disconnect, which both inject, is second of a scenario's kinds and last
// of the proxy's, so the proxy's own kinds come between cancel and it.
var Table = [...]Kind{
	{Name: Cancel, By: Client, Server: "stops the tool's work as soon as practical and sends nothing more for the call — no progress, and (SHOULD) no response. A response or progress later than the cancel plus `progress.grace` counts against the call; work the probes still see after `orphans.grace` is orphaned work"},

	{Name: ProgressEndless, By: Proxy, Client: "A correct client has a maximum timeout that progress does not reset, and cancels at it; a client whose only timeout is reset by progress is reported in `clients.never_cancelled`, with the time held."},
	{Name: Throttle, By: Proxy, Client: "A correct client waits the `Retry-After` out before its next call (`clients.retry_after_honoured`; `retry_after_ignored` otherwise) and never re-sends a request id."},
	{Name: DelayResponse, By: Proxy, Client: "A correct client takes the late answer if its timeouts allow, and cancels at its cap otherwise."},
	{Name: DropResponse, By: Proxy, Client: "A correct client's idle or maximum timeout ends the call."},
	{Name: ServerCancel, By: Proxy, Client: "A correct client ignores it (or reports it) and takes the answer: the record's reaction is `answered`."},
	{Name: ProgressFlood, By: Proxy, Client: "A correct client keeps up (or drops what it cannot handle) and still takes the answer; the Go SDK's client does, at 200 Hz."},
	{Name: ProgressStall, By: Proxy, Client: "A correct client's idle timeout cancels the call; a client that waits for progress to resume is `never_cancelled`."},
	{Name: ProgressRegress, By: Proxy, Client: "A correct client ignores or reports it and takes the answer."},
	{Name: ProgressAfterResponse, By: Proxy, Client: "A correct client ignores it: the answer stands."},

	{Name: Disconnect, By: Client | Proxy,
		Server: "2026: a disconnect **is** a cancel, the server MUST stop. 2025: a disconnect is **not** a cancel; leftover work is reported as *expected legacy behaviour*, not a violation. stdio: the server exits promptly on stdin EOF and leaves no children or CPU behind",
		Client: "A correct client reports the call failed and, if it retries, re-issues it with a new id; the record's reaction is `disconnected`, and the next identical call is recorded as its re-issue."},

	{Name: CancelRace, By: Client, Server: "ignores a cancel for a request it already answered, never crashes or wedges, and answers later calls normally. The cancel is sent even when the response won (closing a 2026 stream that already ended is a no-op)"},
	{Name: StallRead, By: Client, Server: "blocks or buffers and carries on, or drops progress (allowed: it is informational) but still delivers the final response; never crashes. The record says how it coped: `buffered`, `dropped`, `errored` or `blocked`"},
	{Name: Malformed, By: Client, Server: "answers with the right error and stays up: -32700 or HTTP 400 for bad JSON; -32602 (or 400) for wrong params; HTTP 413 or a JSON-RPC error for oversize; -32602 with HTTP 400 for missing `_meta` in 2026. Anything else is counted in `faults.malformed.unexpected`"},
	{Name: Reissue, By: Client, Server: "treats the re-issued request as new work (2026 has no resumption: a re-issue MUST use a new id) and answers it; the probes show whether the original's work still runs"},
	{Name: BadRetry, By: Client, Server: "does not do the work on a broken retry: an error, a tool error or `input_required` again. The work done anyway, or no answer before the call's timeout, is counted in `faults.bad_retry.unexpected`. After `abandon`, nothing runs on: the probes and the server's own records show whether it kept anything ([long-running calls](long-running.md))"},
	{Name: SameIDRetry, By: Client, Server: "answers the retry: as a new request (the work done, `input_required` again, a tool error) or with an error. No answer before the call's timeout, or an answer under another id (on stdio it never reaches the call; on HTTP the retry's stream ends without it), is counted in `faults.same_id_retry.unexpected`"},
	{Name: FastPoll, By: Client, Server: "serves the polls, or refuses them as too soon (the spec lets a server rate-limit polls faster than `pollIntervalMs`): counted in `tasks.poll_throttled`, never a violation ([long-running calls](long-running.md#tasks))"},
	{Name: NotifyFlood, By: Client, Server: "ignores them silently (client progress is outside the 2026 protocol altogether) and its latency for real calls holds. Refusals are counted in `faults.notify_flood.refused`"},
	{Name: CancelUnknown, By: Client, Server: "ignores invalid cancels silently: no response, no error, no effect on other calls"},
}

// Names returns the names of the kinds by injects, in documentation order.
func Names(by Injector) []string {
	var names []string
	for _, k := range Table {
		if k.By&by != 0 {
			names = append(names, k.Name)
		}
	}
	return names
}

// Injects reports whether name is a kind that by injects.
func Injects(name string, by Injector) bool {
	k, ok := Lookup(name)
	return ok && k.By&by != 0
}

// Lookup returns the kind named name.
func Lookup(name string) (Kind, bool) {
	i := slices.IndexFunc(Table[:], func(k Kind) bool { return k.Name == name })
	if i < 0 {
		return Kind{}, false
	}
	return Table[i], true
}

// Elsewhere is the hint for an unknown kind that the other injector has:
// a scenario that names one of the proxy's kinds, or a proxy file one of
// a scenario's. It returns "" when name is no kind of the registry or by
// injects it too.
func Elsewhere(name string, by Injector) string {
	k, ok := Lookup(name)
	switch {
	case !ok || k.By&by != 0:
		return ""
	case k.By&Proxy != 0:
		return name + " is a fault of mcpchaos proxy (a proxy file), not of a scenario; "
	default:
		return name + " is a fault of a scenario (mcpchaos run), not of the proxy; "
	}
}

// Differ compares the kinds an injector's package builds with the kinds
// the registry gives it: nil when they are the same set, each built once,
// else an error naming what is missing, extra or built twice. Packages
// faults and proxy hold their builder tables to it in a test.
func Differ(built []string, by Injector) error {
	var problems []string
	for i, name := range built {
		switch {
		case !Injects(name, by):
			problems = append(problems, fmt.Sprintf("%s is built but not in the registry for this side", name))
		case slices.Index(built, name) != i:
			problems = append(problems, fmt.Sprintf("%s is built twice", name))
		}
	}
	for _, name := range Names(by) {
		if !slices.Contains(built, name) {
			problems = append(problems, fmt.Sprintf("%s is in the registry for this side but has no builder", name))
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("fault kinds differ from the registry (faultkinds.Table): %s", strings.Join(problems, "; "))
	}
	return nil
}
