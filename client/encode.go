package client

import (
	"encoding/base64"
	"strconv"
	"strings"

	"github.com/mcpchaos/mcpchaos/client/rpcmsg"
	"github.com/mcpchaos/mcpchaos/client/vocab"
)

// Malform selects a deliberately broken request body (the malformed fault).
type Malform uint8

const (
	// MalformNone sends a well-formed request.
	MalformNone Malform = iota
	// MalformJSON sends a body that is not valid JSON.
	MalformJSON
	// MalformParams sends params of the wrong types (name a number,
	// arguments a string).
	MalformParams
	// MalformOversize pads the arguments to the requested size.
	MalformOversize
	// MalformMissingMeta leaves out _meta's protocolVersion (2026 only; a
	// legacy request has no such field to leave out).
	MalformMissingMeta
)

func (m Malform) String() string {
	switch m {
	case MalformJSON:
		return "json"
	case MalformParams:
		return "params"
	case MalformOversize:
		return "oversize"
	case MalformMissingMeta:
		return "missing_meta"
	}
	return "none"
}

// metaOptions says which _meta keys a request carries.
type metaOptions struct {
	modern      bool // 2026: protocolVersion, clientCapabilities, clientInfo
	noVersion   bool // leave out protocolVersion (malformed fault)
	progressTok int64
	marker      Marker
	tasks       bool // declare the tasks extension in clientCapabilities
}

// any reports whether the _meta object would hold anything.
func (o *metaOptions) any() bool { return o.modern || o.progressTok != 0 || o.marker.Run != "" }

// Marker identifies one tools/call across every hop between client and
// server: it travels in _meta under MarkerMeta as "RUN.SEQ.ATTEMPT", and
// the built-in target records what it did for each marker and echoes it in
// the result.
type Marker struct {
	Run     string // the run's id: letters and digits
	Seq     uint64 // the tick
	Attempt int    // 0, then 1, 2... for re-issues and retries
}

// MarkerMeta is the _meta key of a call's marker (results.MarkerMeta).
const MarkerMeta = "dev.mcpchaos/call"

// AppendMarker appends the marker's text (without quotes) to b.
func AppendMarker(b []byte, m Marker) []byte {
	b = append(b, m.Run...)
	b = append(b, '.')
	b = strconv.AppendUint(b, m.Seq, 10)
	b = append(b, '.')
	return strconv.AppendInt(b, int64(m.Attempt), 10)
}

// appendMeta writes `"_meta":{...}` (or nothing when the object would be
// empty) and reports whether it wrote anything.
func (c *Client) appendMeta(b []byte, o metaOptions) ([]byte, bool) {
	if !o.any() {
		return b, false
	}
	b = append(b, `"_meta":{`...)
	first := true
	sep := func() {
		if !first {
			b = append(b, ',')
		}
		first = false
	}
	if o.modern {
		if !o.noVersion {
			sep()
			b = append(b, `"`+vocab.MetaProtocolVersion+`":`...)
			b = rpcmsg.AppendString(b, string(c.era))
		}
		sep()
		b = append(b, `"`+vocab.MetaClientCapabilities+`":`...)
		if o.tasks {
			b = append(b, c.tasksCapabilities()...)
		} else {
			b = append(b, c.capabilities()...)
		}
		b = append(b, `,"`+vocab.MetaClientInfo+`":`...)
		b = append(b, c.clientInfo...)
	}
	if o.progressTok != 0 {
		sep()
		b = append(b, `"progressToken":`...)
		b = appendToken(b, o.progressTok)
	}
	if o.marker.Run != "" {
		sep()
		b = append(b, `"`+MarkerMeta+`":"`...)
		b = AppendMarker(b, o.marker)
		b = append(b, '"')
	}
	return append(b, '}'), true
}

// appendRequest writes a JSON-RPC request whose params hold the given
// members (already encoded, without braces) plus _meta.
func (c *Client) appendRequest(b []byte, id int64, method string, members []byte, o metaOptions) []byte {
	b = rpcmsg.AppendRequestHead(b, id, method)
	b = append(b, `,"params":{`...)
	b = append(b, members...)
	if len(members) > 0 && o.any() {
		b = append(b, ',')
	}
	b, _ = c.appendMeta(b, o)
	return append(b, `}}`...)
}

// appendCallBody writes a tools/call request, well-formed or broken as m
// says. args must be a JSON object (nil means none); retry, when set, is
// more members of params, already encoded (inputResponses, requestState).
// tasks declares the tasks extension (2026 only).
func (c *Client) appendCallBody(b []byte, id int64, tool string, args []byte, tok int64, marker Marker, m Malform, size int, retry []byte, tasks bool) []byte {
	o := metaOptions{modern: c.era.Modern(), progressTok: tok, marker: marker, tasks: tasks}
	b = rpcmsg.AppendRequestHead(b, id, vocab.MethodToolsCall)
	b = append(b, `,"params":{"name":`...)
	switch m {
	case MalformJSON:
		// Cut the body off in the middle of the tool name.
		b = append(b, '"')
		return append(b, tool[:len(tool)/2]...)
	case MalformParams:
		b = append(b, `42,"arguments":"not an object",`...)
		b, _ = c.appendMeta(b, o)
		return append(b, `}}`...)
	case MalformMissingMeta:
		o.noVersion = true
	}
	b = rpcmsg.AppendString(b, tool)
	switch {
	case m == MalformOversize:
		b = append(b, `,"arguments":{"mcpchaos_padding":"`...)
		b = appendPadding(b, size-len(b), len(args)+1024)
		b = append(b, '"')
		if len(args) > 2 {
			b = append(b, ',')
			b = append(b, args[1:]...)
		} else {
			b = append(b, '}')
		}
	case len(args) > 0:
		b = append(b, `,"arguments":`...)
		b = append(b, args...)
	}
	if len(retry) > 0 {
		b = append(b, ',')
		b = append(b, retry...)
	}
	if o.any() {
		b = append(b, ',')
		b, _ = c.appendMeta(b, o)
	}
	return append(b, `}}`...)
}

// appendPadding appends n bytes of 'x' (none when n <= 0), growing b once
// with room for extra bytes after them, and fills it in doubling copies.
// Appended a byte at a time, a 5 MiB body regrew a dozen times and touched
// ~10 MiB of fresh memory: 50-150 ms per call, and seconds under the race
// detector on a busy machine, all of it inside Start.
func appendPadding(b []byte, n, extra int) []byte {
	if n <= 0 {
		return b
	}
	if cap(b)-len(b) < n+extra {
		b = append(make([]byte, 0, len(b)+n+extra), b...)
	}
	pad := b[len(b) : len(b)+n]
	pad[0] = 'x'
	for filled := 1; filled < n; filled *= 2 {
		copy(pad[filled:], pad[:filled])
	}
	return b[:len(b)+n]
}

// appendCancelled writes a notifications/cancelled for id.
func appendCancelled(b []byte, id int64, reason string) []byte {
	b = rpcmsg.AppendNotificationHead(b, vocab.MethodCancelled)
	b = append(b, `,"params":{"requestId":`...)
	b = strconv.AppendInt(b, id, 10)
	if reason != "" {
		b = append(b, `,"reason":`...)
		b = rpcmsg.AppendString(b, reason)
	}
	return append(b, `}}`...)
}

// headerValue encodes a value for Mcp-Name and Mcp-Param-* headers: plain
// visible ASCII as is; anything else, or a value that looks like the
// sentinel, as =?base64?...?=.
func headerValue(v string) string {
	plain := len(v) > 0 && v[0] != ' ' && v[len(v)-1] != ' '
	for i := 0; plain && i < len(v); i++ {
		if v[i] < 0x20 || v[i] > 0x7e {
			plain = false
		}
	}
	if plain && !(strings.HasPrefix(v, "=?base64?") && strings.HasSuffix(v, "?=")) {
		return v
	}
	return "=?base64?" + base64.StdEncoding.EncodeToString([]byte(v)) + "?="
}
