// Package rpcmsg is mcpchaos's one JSON-RPC 2.0 codec: the envelopes of
// requests, notifications, results and errors, the message type a
// non-hot-path reader decodes with encoding/json, ids kept raw (a number
// or a string, as sent) and the standard error codes. The client, the
// proxy and the built-in target's filters all build their messages here;
// none writes an envelope by hand.
//
// The Append functions write into a caller's buffer without allocating
// (the client's hot path); the functions named after a message marshal Go
// values for the rest. Method names and revisions come from client/vocab,
// which callers pass in. Standard library only.
package rpcmsg

import (
	"encoding/json"
	"strconv"
)

// Version is the value of every message's "jsonrpc" member.
const Version = "2.0"

// Error codes JSON-RPC 2.0 defines, and those MCP adds.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternalError  = -32603
	// CodeServerError starts the range (-32000 to -32099) JSON-RPC leaves
	// to implementation-defined server errors.
	CodeServerError        = -32000
	CodeHeaderMismatch     = -32020
	CodeMissingCapability  = -32021
	CodeUnsupportedVersion = -32022
)

// Message is any JSON-RPC message as encoding/json decodes it: a request
// (Method and ID), a notification (Method, no ID), a result or an error
// (ID and Result or Error). Every member is kept raw.
type Message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   json.RawMessage `json:"error,omitempty"`
}

// IsRequest reports whether m is a request: a method and an id.
func (m *Message) IsRequest() bool { return m.Method != "" && len(m.ID) > 0 }

// IsNotification reports whether m is a notification: a method, no id.
func (m *Message) IsNotification() bool { return m.Method != "" && len(m.ID) == 0 }

// IsResponse reports whether m is the final response to a request: an id
// (null for an unreadable request), a result or an error, no method.
func (m *Message) IsResponse() bool {
	return m.Method == "" && len(m.ID) > 0 && (len(m.Result) > 0 || len(m.Error) > 0)
}

// Error is the error member of a response.
type Error struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// DecodeError reads a response's error member; ok is false when raw is
// absent or not an error object with a numeric code.
func DecodeError(raw json.RawMessage) (e Error, ok bool) {
	var v struct {
		Code    *int64          `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	}
	if len(raw) == 0 || json.Unmarshal(raw, &v) != nil || v.Code == nil {
		return Error{}, false
	}
	return Error{Code: *v.Code, Message: v.Message, Data: v.Data}, true
}

// NullID is the id of an error that answers a message whose id could not
// be read.
var NullID = json.RawMessage("null")

// IntID is the raw id of a numeric request id.
func IntID(n int64) json.RawMessage { return strconv.AppendInt(nil, n, 10) }

// StringID is the raw id of a string request id.
func StringID(s string) json.RawMessage { return AppendString(nil, s) }

// AppendRequestHead writes the start of a request with a numeric id:
// `{"jsonrpc":"2.0","id":ID,"method":"METHOD"`; the caller writes the
// params member (or none) and the closing brace.
func AppendRequestHead(b []byte, id int64, method string) []byte {
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = strconv.AppendInt(b, id, 10)
	b = append(b, `,"method":`...)
	return AppendString(b, method)
}

// AppendNotificationHead writes the start of a notification:
// `{"jsonrpc":"2.0","method":"METHOD"`; the caller writes the params
// member (or none) and the closing brace.
func AppendNotificationHead(b []byte, method string) []byte {
	b = append(b, `{"jsonrpc":"2.0","method":`...)
	return AppendString(b, method)
}

// AppendRequest writes a whole request with a raw id; params is raw JSON,
// nil for none.
func AppendRequest(b []byte, id json.RawMessage, method string, params []byte) []byte {
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = appendID(b, id)
	b = append(b, `,"method":`...)
	b = AppendString(b, method)
	return appendMember(b, "params", params)
}

// AppendNotification writes a whole notification; params is raw JSON, nil
// for none.
func AppendNotification(b []byte, method string, params []byte) []byte {
	return appendMember(AppendNotificationHead(b, method), "params", params)
}

// AppendResult writes a response with a raw result ({} when nil).
func AppendResult(b []byte, id json.RawMessage, result []byte) []byte {
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = appendID(b, id)
	if len(result) == 0 {
		result = []byte("{}")
	}
	return appendMember(b, "result", result)
}

// AppendError writes an error response; a nil id is null (the request's
// id could not be read); data is raw JSON, nil for none.
func AppendError(b []byte, id json.RawMessage, code int64, message string, data []byte) []byte {
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = appendID(b, id)
	b = append(b, `,"error":{"code":`...)
	b = strconv.AppendInt(b, code, 10)
	b = append(b, `,"message":`...)
	b = AppendString(b, message)
	if len(data) > 0 {
		b = append(b, `,"data":`...)
		b = append(b, data...)
	}
	return append(b, `}}`...)
}

// AppendErrorObject writes an error response whose error member is raw
// JSON already (an upstream's own error object, passed on).
func AppendErrorObject(b []byte, id json.RawMessage, errObj []byte) []byte {
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = appendID(b, id)
	return appendMember(b, "error", errObj)
}

func appendID(b []byte, id json.RawMessage) []byte {
	if len(id) == 0 {
		return append(b, NullID...)
	}
	return append(b, id...)
}

// appendMember writes `,"name":raw}` (or only the brace when raw is nil).
func appendMember(b []byte, name string, raw []byte) []byte {
	if len(raw) > 0 {
		b = append(b, ',', '"')
		b = append(b, name...)
		b = append(b, '"', ':')
		b = append(b, raw...)
	}
	return append(b, '}')
}
