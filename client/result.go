package client

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/mcpchaos/mcpchaos/client/rpcmsg"
	"github.com/mcpchaos/mcpchaos/internal/termsafe"
)

// decodeCallResult reads the parts of a tools/call result the measurements
// need, without allocating. r.Text points into raw.
func decodeCallResult(s *scanner, raw []byte, r *Result) error {
	*r = Result{PollIntervalMs: -1}
	s.Reset(raw)
	if s.Peek() != '{' {
		return errors.New("result is not an object")
	}
	err := s.Object(func(key []byte, esc bool) error {
		switch {
		case keyIs(key, esc, "resultType"):
			return decodeResultType(s, r)
		case keyIs(key, esc, "isError"):
			v, err := s.Value()
			r.IsError = string(v) == "true"
			return err
		case keyIs(key, esc, "structuredContent"):
			v, err := s.Value()
			r.HasStructured = string(v) != "null"
			return err
		case keyIs(key, esc, "requestState"):
			v, err := s.Value()
			if string(v) != "null" {
				r.RequestState = v
			}
			return err
		case keyIs(key, esc, "inputRequests"):
			v, err := s.Value()
			if string(v) != "null" && !emptyObject(v) {
				r.InputRequests = v // {} asks nothing: the Go SDK's load shedding
			}
			return err
		case keyIs(key, esc, "taskId") && s.Peek() == '"':
			v, _, err := s.Str()
			r.TaskID = v
			return err
		case keyIs(key, esc, "status") && s.Peek() == '"':
			v, _, err := s.Str()
			r.TaskStatus = v
			return err
		case keyIs(key, esc, "pollIntervalMs"):
			v, err := s.Value()
			if n, perr := strconv.ParseInt(string(v), 10, 64); perr == nil && n >= 0 {
				r.PollIntervalMs = n
			}
			return err
		case keyIs(key, esc, "content"):
			return firstText(s, r)
		case keyIs(key, esc, "_meta") && s.Peek() == '{':
			return decodeResultMeta(s, r)
		default:
			_, err := s.Value()
			return err
		}
	})
	if err != nil {
		return err
	}
	r.StateOnly = r.Type == ResultInputRequired && r.RequestState != nil && r.InputRequests == nil
	return s.End()
}

// decodeResultType reads a result's resultType: any value but the three
// known strings is ResultUnknown.
func decodeResultType(s *scanner, r *Result) error {
	if s.Peek() != '"' {
		r.Type = ResultUnknown
		_, err := s.Value()
		return err
	}
	v, _, err := s.Str()
	switch string(v) {
	case "complete":
		r.Type = ResultComplete
	case "input_required":
		r.Type = ResultInputRequired
	case "task":
		r.Type = ResultTask
	default:
		r.Type = ResultUnknown
	}
	return err
}

// decodeResultMeta reads a result's _meta object for the call's marker.
func decodeResultMeta(s *scanner, r *Result) error {
	return s.Object(func(key []byte, esc bool) error {
		if keyIs(key, esc, MarkerMeta) && s.Peek() == '"' {
			v, _, err := s.Str()
			r.Marker = v
			return err
		}
		_, err := s.Value()
		return err
	})
}

// emptyObject reports whether a JSON value is {} (whitespace aside).
func emptyObject(v []byte) bool {
	t := bytes.TrimSpace(v)
	return len(t) >= 2 && t[0] == '{' && len(bytes.TrimSpace(t[1:len(t)-1])) == 0
}

// firstText finds the text of the first {"type":"text"} block of a content
// array and skips the rest; HasContent says the array had any block.
func firstText(s *scanner, r *Result) error {
	if s.Peek() != '[' {
		_, err := s.Value()
		return err
	}
	return s.Array(func() error {
		r.HasContent = true
		if s.Peek() != '{' || r.Text != nil {
			_, err := s.Value()
			return err
		}
		var text []byte
		var isText bool
		err := s.Object(func(key []byte, esc bool) error {
			switch {
			case keyIs(key, esc, "type") && s.Peek() == '"':
				v, _, err := s.Str()
				isText = string(v) == "text"
				return err
			case keyIs(key, esc, "text") && s.Peek() == '"':
				v, _, err := s.Str()
				text = v
				return err
			}
			_, err := s.Value()
			return err
		})
		if isText && err == nil {
			r.Text = text
			if r.Text == nil {
				r.Text = []byte{}
			}
		}
		return err
	})
}

// Implementation names a client or server.
type Implementation struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// DiscoverResult is the answer to server/discover.
type DiscoverResult struct {
	SupportedVersions []string        `json:"supportedVersions"`
	Capabilities      json.RawMessage `json:"capabilities"`
	Instructions      string          `json:"instructions,omitempty"`
	TTLMs             *int64          `json:"ttlMs"`
	CacheScope        string          `json:"cacheScope"`
	ResultType        string          `json:"resultType"`
	Meta              struct {
		ServerInfo *Implementation `json:"io.modelcontextprotocol/serverInfo"`
	} `json:"_meta"`
}

// InitializeResult is the legacy handshake's answer.
type InitializeResult struct {
	ProtocolVersion string          `json:"protocolVersion"`
	Capabilities    json.RawMessage `json:"capabilities"`
	ServerInfo      Implementation  `json:"serverInfo"`
	Instructions    string          `json:"instructions,omitempty"`
}

// Tool is one entry of tools/list.
type Tool struct {
	Name         string          `json:"name"`
	Title        string          `json:"title,omitempty"`
	Description  string          `json:"description,omitempty"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	Annotations  json.RawMessage `json:"annotations,omitempty"`
	Meta         json.RawMessage `json:"_meta,omitempty"`
	// Raw is the entry as the server sent it.
	Raw json.RawMessage `json:"-"`
}

// RPCError is a JSON-RPC error answered by the server.
type RPCError struct {
	Code    int64
	Message string
	Data    json.RawMessage
}

// Error quotes the server's message with its control characters escaped
// (termsafe): a line feed in it does not start a line of the message's
// own wherever it is printed. Message keeps it as sent.
func (e *RPCError) Error() string {
	return fmt.Sprintf("server answered error %d: %s", e.Code, termsafe.Escape(e.Message))
}

// versionErrorData is the data of -32022 (and of legacy -32602 version
// errors).
type versionErrorData struct {
	Supported []string `json:"supported"`
	Requested string   `json:"requested"`
}

// Error codes the spec defines.
const (
	CodeParseError         = rpcmsg.CodeParseError
	CodeInvalidRequest     = rpcmsg.CodeInvalidRequest
	CodeMethodNotFound     = rpcmsg.CodeMethodNotFound
	CodeInvalidParams      = rpcmsg.CodeInvalidParams
	CodeInternalError      = rpcmsg.CodeInternalError
	CodeHeaderMismatch     = rpcmsg.CodeHeaderMismatch
	CodeMissingCapability  = rpcmsg.CodeMissingCapability
	CodeUnsupportedVersion = rpcmsg.CodeUnsupportedVersion
)
