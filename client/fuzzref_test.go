package client

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"testing"
	"unicode/utf8"
)

// Reference decoders for the fuzz targets, built on encoding/json and on
// a straightforward reading of the SSE format.

// refMsg is what encoding/json makes of a message.
type refMsg struct {
	kind           msgKind // kindInvalid: our decoder must reject it
	method         string
	hasID, idIsNum bool
	idNum          int64
	idStr          *string
	params, result []byte
	code           int64
}

// referenceMessage decodes data with encoding/json. ok is false when the
// semantics are not clear enough to compare: not a JSON object, invalid
// UTF-8 (which encoding/json replaces and we reject), duplicate keys
// (encoding/json keeps the last), very deep nesting (we stop at 256), or a
// member whose type JSON-RPC does not allow.
func referenceMessage(data []byte) (refMsg, bool) {
	var out refMsg
	if !utf8.Valid(data) || depth(data) > 200 {
		return out, false
	}
	obj, ok := uniqueObject(data)
	if !ok {
		return out, false
	}
	if raw, ok := obj["method"]; ok {
		if json.Unmarshal(raw, &out.method) != nil {
			return out, false
		}
	}
	idNull, explicitNull := true, false
	if raw, ok := obj["id"]; ok {
		var v any
		_ = json.Unmarshal(raw, &v)
		switch v := v.(type) {
		case nil:
			explicitNull = true
		case string:
			out.hasID, out.idStr, idNull = true, &v, false
		case float64:
			out.hasID, idNull = true, false
			if n, err := strconv.ParseInt(string(raw), 10, 64); err == nil {
				out.idIsNum, out.idNum = true, n
			}
		default:
			return out, false
		}
	}
	_, hasMethod := obj["method"]
	out.params = obj["params"]
	result, hasResult := obj["result"]
	out.result = result
	errRaw, hasError := obj["error"]
	if hasError {
		e, ok := uniqueObject(errRaw)
		if !ok {
			return out, false
		}
		code, ok := e["code"]
		if !ok {
			return out, false
		}
		n, err := strconv.ParseInt(string(code), 10, 64)
		if err != nil {
			return out, false
		}
		out.code = n
	}
	switch {
	case hasMethod && !idNull:
		out.kind = kindRequest
	case hasMethod:
		out.kind = kindNotification
	case hasError && !hasResult && explicitNull:
		out.kind = kindError // answers a request whose id could not be read
	case hasResult && hasError, idNull:
		out.kind = kindInvalid
	case hasResult:
		out.kind = kindResult
	case hasError:
		out.kind = kindError
	default:
		out.kind = kindInvalid
	}
	return out, true
}

// uniqueObject decodes a JSON object whose keys are all distinct.
func uniqueObject(data []byte) (map[string]json.RawMessage, bool) {
	var obj map[string]json.RawMessage
	if json.Unmarshal(data, &obj) != nil || obj == nil {
		return nil, false
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if _, err := dec.Token(); err != nil {
		return nil, false
	}
	n := 0
	for dec.More() {
		if _, err := dec.Token(); err != nil {
			return nil, false
		}
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return nil, false
		}
		n++
	}
	return obj, n == len(obj)
}

// depth is the deepest nesting of arrays and objects in data.
func depth(data []byte) int {
	d, max, inStr, esc := 0, 0, false, false
	for _, c := range data {
		switch {
		case inStr && esc:
			esc = false
		case inStr && c == '\\':
			esc = true
		case c == '"':
			inStr = !inStr
		case inStr:
		case c == '{' || c == '[':
			d++
			max = maxInt(max, d)
		case c == '}' || c == ']':
			d--
		}
	}
	return max
}

func maxInt(a, b int) int {
	if a > b {
		return a
	}
	return b
}

// checkProgress compares decodeProgress with encoding/json where the
// params have clear progress semantics.
func checkProgress(t *testing.T, params []byte, p *progressMsg, err error) {
	obj, ok := uniqueObject(params)
	if !ok {
		return
	}
	var progress float64
	tok, hasTok := obj["progressToken"]
	raw, hasProg := obj["progress"]
	if !hasTok || !hasProg || json.Unmarshal(raw, &progress) != nil || math.IsInf(progress, 0) {
		if err == nil {
			t.Fatalf("decodeProgress(%s) accepted params without a numeric progress and a token", params)
		}
		return
	}
	var tokV any
	if json.Unmarshal(tok, &tokV) != nil {
		return
	}
	_, isStr := tokV.(string)
	_, isNum := tokV.(float64)
	if !isStr && !isNum {
		return // a token of another type: our decoder's answer is unspecified
	}
	var total *float64
	if raw, ok := obj["total"]; ok && string(raw) != "null" {
		if json.Unmarshal(raw, &total) != nil || total == nil {
			return
		}
	}
	if m, ok := obj["message"]; ok && m[0] != '"' {
		_ = m // a non-string message is skipped by design
	}
	if err != nil {
		t.Fatalf("decodeProgress(%s): %v", params, err)
	}
	if p.progress != progress || p.tokenIsStr != isStr {
		t.Fatalf("decodeProgress(%s) = %v (str %v), want %v (str %v)", params, p.progress, p.tokenIsStr, progress, isStr)
	}
	if (total != nil) != p.hasTotal || total != nil && *total != p.total {
		t.Fatalf("decodeProgress(%s) total %v/%v, want %v", params, p.total, p.hasTotal, total)
	}
}

// checkResult compares decodeCallResult with encoding/json on the fields
// whose meaning is clear.
func checkResult(t *testing.T, raw []byte, r *Result, err error) {
	obj, ok := uniqueObject(raw)
	if !ok {
		return
	}
	if c, ok := obj["content"]; ok {
		var items []json.RawMessage
		if json.Unmarshal(c, &items) == nil {
			for _, it := range items {
				if _, ok := uniqueObject(it); !ok && len(it) > 0 && it[0] == '{' {
					return // a content block with duplicate keys
				}
			}
		}
	}
	if err != nil {
		t.Fatalf("decodeCallResult(%s): %v", raw, err)
	}
	if got, want := r.IsError, string(obj["isError"]) == "true"; got != want {
		t.Fatalf("IsError = %v, want %v in %s", got, want, raw)
	}
	if s, ok := obj["structuredContent"]; r.HasStructured != (ok && string(s) != "null") {
		t.Fatalf("HasStructured = %v in %s", r.HasStructured, raw)
	}
	if rt, ok := obj["resultType"]; ok && !bytes.Contains(rt, []byte{'\\'}) {
		want := map[string]ResultType{`"complete"`: ResultComplete, `"input_required"`: ResultInputRequired, `"task"`: ResultTask}[string(rt)]
		if want == 0 {
			want = ResultUnknown
		}
		if r.Type != want {
			t.Fatalf("Type = %v, want %v in %s", r.Type, want, raw)
		}
	} else if !ok && r.Type != ResultMissing {
		t.Fatalf("Type = %v without resultType in %s", r.Type, raw)
	}
	var meta map[string]json.RawMessage
	if m, ok := obj["_meta"]; ok && json.Unmarshal(m, &meta) == nil {
		if _, unique := uniqueObject(m); unique {
			if mk, ok := meta[MarkerMeta]; ok && len(mk) > 1 && mk[0] == '"' && !bytes.Contains(mk, []byte{'\\'}) {
				if want := mk[1 : len(mk)-1]; !bytes.Equal(r.Marker, want) {
					t.Fatalf("Marker = %q, want %q in %s", r.Marker, want, raw)
				}
			}
		}
	}
}

// referenceSSE reads an event stream the way sseReader documents it: lines
// end in LF or CRLF; comments and fields other than data are skipped; an
// event is dispatched at a blank line (or at the end of the stream) when
// its data is not empty. An event's data over max, or a line that is not
// a data field over min(max, maxSSELine), is an oversize error.
func referenceSSE(stream []byte, max int) ([]string, error) {
	var out []string
	var data []byte
	has := false
	lines := bytes.SplitAfter(stream, []byte("\n"))
	for _, l := range lines {
		if len(l) == 0 {
			continue
		}
		line := bytes.TrimSuffix(bytes.TrimSuffix(l, []byte("\n")), []byte("\r"))
		isData := bytes.HasPrefix(line, []byte("data:")) || string(line) == "data"
		if !isData && len(line) > min(max, maxSSELine) {
			return out, errOversize{max: min(max, maxSSELine)}
		}
		switch {
		case len(line) == 0:
			if has && len(data) > 0 {
				out = append(out, string(data))
			}
			data, has = data[:0], false
			continue
		case line[0] == ':':
			continue
		}
		name, value := line, []byte(nil)
		if i := bytes.IndexByte(line, ':'); i >= 0 {
			name, value = line[:i], bytes.TrimPrefix(line[i+1:], []byte(" "))
		}
		if string(name) != "data" {
			continue
		}
		if has {
			data = append(data, '\n')
		}
		if len(data)+len(value) > max {
			return out, errOversize{max: max}
		}
		data, has = append(data, value...), true
	}
	if has && len(data) > 0 {
		out = append(out, string(data))
	}
	return out, nil
}
