// Package vocab is the Model Context Protocol's vocabulary, defined once:
// the revision strings and which of them are legacy, the JSON-RPC method
// names, the HTTP header names and the _meta keys that mcpchaos reads or
// writes. Every package of mcpchaos takes these words from here, so a
// rule (what counts as legacy, what a missing version header means) has
// one definition.
//
// It is a leaf (standard library only), so that the scenario decoder,
// which may not import the client, shares it; the client builds its Era
// type on it.
package vocab

// Protocol revisions. Modern means 2026-07-28 and later: no handshake,
// every request carries its own _meta. Legacy means the revisions before
// it (2025-11-25 and earlier): initialize, and on HTTP a session.
const (
	Rev20260728 = "2026-07-28"
	Rev20251125 = "2025-11-25"
	Rev20250618 = "2025-06-18"
	Rev20250326 = "2025-03-26"
	// Rev20241105 is the revision of the deprecated HTTP+SSE transport.
	Rev20241105 = "2024-11-05"

	// FirstModern is the first modern revision.
	FirstModern = Rev20260728
	// MissingHeaderRevision is the revision a request without an
	// MCP-Protocol-Version header is taken to speak (the 2025 transports
	// say a server should assume it when nothing else names the version).
	MissingHeaderRevision = Rev20250326
)

// IsRevision reports whether s has a revision's form, YYYY-MM-DD (digits
// and dashes), in which revisions compare as strings.
func IsRevision(s string) bool {
	if len(s) != len("2006-01-02") {
		return false
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case i == 4 || i == 7:
			if c != '-' {
				return false
			}
		case c < '0' || c > '9':
			return false
		}
	}
	return true
}

// IsModern reports whether rev is a revision of 2026-07-28 or later.
// Anything that is not a revision ("", "auto", garbage) is neither modern
// nor legacy.
func IsModern(rev string) bool { return IsRevision(rev) && rev >= FirstModern }

// IsLegacy reports whether rev is a revision before 2026-07-28: one with
// the initialize handshake, HTTP sessions, and in which a plain disconnect
// is not a cancel.
func IsLegacy(rev string) bool { return IsRevision(rev) && rev < FirstModern }

// HeaderRevision is the revision an MCP-Protocol-Version header value
// names: MissingHeaderRevision when the header is absent.
func HeaderRevision(v string) string {
	if v == "" {
		return MissingHeaderRevision
	}
	return v
}

// JSON-RPC method names.
const (
	MethodDiscover         = "server/discover"
	MethodInitialize       = "initialize"
	MethodInitialized      = "notifications/initialized"
	MethodPing             = "ping"
	MethodToolsList        = "tools/list"
	MethodToolsCall        = "tools/call"
	MethodPromptsGet       = "prompts/get"
	MethodResourcesRead    = "resources/read"
	MethodProgress         = "notifications/progress"
	MethodCancelled        = "notifications/cancelled"
	MethodMessage          = "notifications/message"
	MethodToolsListChanged = "notifications/tools/list_changed"
	MethodRootsListChanged = "notifications/roots/list_changed"
	MethodElicit           = "elicitation/create"
	MethodSampling         = "sampling/createMessage"
	MethodRoots            = "roots/list"

	// NotificationPrefix starts every notification's method name.
	NotificationPrefix = "notifications/"
)

// HTTP header names, as the specification writes them (HTTP compares
// them without case).
const (
	HeaderProtocolVersion = "MCP-Protocol-Version"
	HeaderSessionID       = "Mcp-Session-Id"
	HeaderMethod          = "Mcp-Method"
	HeaderName            = "Mcp-Name"
	// HeaderParamPrefix starts each header that mirrors a tool parameter
	// (Mcp-Param-NAME).
	HeaderParamPrefix = "Mcp-Param-"
	// HeaderPrefix starts every MCP header (in canonical form).
	HeaderPrefix = "Mcp-"
)

// The tasks extension: its identifier and methods.
const (
	ExtTasks          = "io.modelcontextprotocol/tasks"
	MethodTasksGet    = "tasks/get"
	MethodTasksUpdate = "tasks/update"
	MethodTasksCancel = "tasks/cancel"
)

// Subscriptions (2026): a subscriptions/listen request opens a stream of
// notifications, acknowledged first; the tasks extension adds
// notifications/tasks for the task ids asked for. Every message on the
// stream carries the listen request's id under MetaSubscriptionID.
const (
	MethodSubscriptionsListen = "subscriptions/listen"
	MethodSubscriptionsAcked  = "notifications/subscriptions/acknowledged"
	MethodTasksNotification   = "notifications/tasks"
	MetaSubscriptionID        = "io.modelcontextprotocol/subscriptionId"
)

// Keys of a request's or a result's _meta.
const (
	MetaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	MetaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	MetaClientInfo         = "io.modelcontextprotocol/clientInfo"
	MetaServerInfo         = "io.modelcontextprotocol/serverInfo"
)
