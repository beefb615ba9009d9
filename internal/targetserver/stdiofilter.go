package targetserver

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"reflect"
	"sync"

	"github.com/mcpchaos/mcpchaos/client/rpcmsg"
	"github.com/mcpchaos/mcpchaos/client/vocab"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The SDK's stdio transport ends the session on a line that is not JSON,
// and serves a request without _meta's protocolVersion as a legacy one. A
// correct server does neither, so the built-in target answers both itself:
// -32700 for a line that is not JSON (and carries on), -32602 for a 2026
// request that lacks its protocol version.

// maxStdioLine bounds one line the filter holds.
const maxStdioLine = 64 << 20

// lockedWriter serialises whole-message writes from the SDK and from the
// filter onto one stream.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// parseErrorLine is the answer to a line that is not JSON: its id cannot
// be known, so it is null.
var parseErrorLine = append(rpcmsg.AppendError(nil, rpcmsg.NullID, rpcmsg.CodeParseError, "parse error: the line is not JSON", nil), '\n')

// filterLines copies JSON lines from in to the SDK's side of a pipe and
// answers every other non-empty line with a parse error on out; a JSON
// line that take takes (a listen request served by the target) is not
// copied. It closes the pipe when in ends.
func filterLines(in io.Reader, sdk *io.PipeWriter, out io.Writer, tag func([]byte) []byte, take func([]byte) bool) {
	br := bufio.NewReaderSize(in, 64<<10)
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if len(line)+len(chunk) <= maxStdioLine {
			line = append(line, chunk...)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if trimmed := trimLine(line); len(trimmed) > 0 {
			var werr error
			switch {
			case !json.Valid(trimmed):
				_, werr = out.Write(parseErrorLine)
			case take(trimmed):
			default:
				_, werr = sdk.Write(append(tag(trimmed), '\n'))
			}
			if werr != nil {
				sdk.CloseWithError(werr)
				return
			}
		}
		line = line[:0]
		if err != nil {
			sdk.CloseWithError(err)
			return
		}
	}
}

func trimLine(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r' || b[len(b)-1] == ' ') {
		b = b[:len(b)-1]
	}
	return b
}

// metaMiddleware rejects a request that carries 2026 per-request metadata
// (clientCapabilities) but not its protocolVersion, with -32602.
func metaMiddleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if p := req.GetParams(); p != nil && !isNilPointer(p) {
			m := p.GetMeta()
			_, caps := m[vocab.MetaClientCapabilities]
			_, version := m[vocab.MetaProtocolVersion]
			if caps && !version {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams,
					Message: `missing _meta "` + vocab.MetaProtocolVersion + `"`}
			}
		}
		return next(ctx, method, req)
	}
}

func isNilPointer(v any) bool {
	rv := reflect.ValueOf(v)
	return rv.Kind() == reflect.Pointer && rv.IsNil()
}
