package probes

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/mcpchaos/mcpchaos/client"
)

// ToolCaller calls a tool and returns its whole result. *client.Client
// satisfies it.
type ToolCaller interface {
	CallTool(ctx context.Context, tool string, args json.RawMessage) (client.ToolResult, error)
}

// Tool is a probe that calls a tool on the server and reads a number from
// its result.
type Tool struct {
	caller  ToolCaller
	tool    string
	args    json.RawMessage
	pointer string
}

// NewTool returns a probe that calls tool name with args and reads the
// number at JSON pointer (RFC 6901; "" = the whole document) in the
// result's structuredContent when present, else in its first text content
// block parsed as JSON. A pointer that does not parse is reported by
// Sample; check it earlier with ParsePointer.
func NewTool(caller ToolCaller, name string, args json.RawMessage, pointer string) *Tool {
	return &Tool{caller: caller, tool: name, args: args, pointer: pointer}
}

// Name returns "tool NAME", followed by the pointer when there is one.
func (t *Tool) Name() string {
	if t.pointer == "" {
		return "tool " + t.tool
	}
	return "tool " + t.tool + " " + t.pointer
}

// Sample calls the tool once and returns the number it reports.
func (t *Tool) Sample(ctx context.Context) (float64, error) {
	ptr, err := ParsePointer(t.pointer)
	if err != nil {
		return 0, fmt.Errorf("tool %q: %w", t.tool, err)
	}
	res, err := t.caller.CallTool(ctx, t.tool, t.args)
	if err != nil {
		return 0, fmt.Errorf("tool %q: %w", t.tool, err)
	}
	v, err := resultNumber(res.Raw, ptr)
	if err != nil {
		return 0, fmt.Errorf("tool %q: %w", t.tool, err)
	}
	return v, nil
}

// callResult is the part of a tools/call result a tool probe reads.
type callResult struct {
	IsError           bool            `json:"isError"`
	StructuredContent json.RawMessage `json:"structuredContent"`
	Content           []struct {
		Type string  `json:"type"`
		Text *string `json:"text"`
	} `json:"content"`
}

// resultNumber reads the number at ptr in a tools/call result.
func resultNumber(raw json.RawMessage, ptr Pointer) (float64, error) {
	var res callResult
	if err := json.Unmarshal(raw, &res); err != nil {
		return 0, fmt.Errorf("decode result: %w", err)
	}
	text := ""
	hasText := false
	for _, c := range res.Content {
		if c.Type == "text" && c.Text != nil {
			text, hasText = *c.Text, true
			break
		}
	}
	if res.IsError {
		if len(text) > 200 {
			text = text[:200] + "..."
		}
		return 0, fmt.Errorf("result is a tool error: %q", text)
	}
	var src string
	var doc []byte
	switch {
	case len(res.StructuredContent) > 0 && !bytes.Equal(res.StructuredContent, []byte("null")):
		src, doc = "structuredContent", res.StructuredContent
	case hasText:
		src, doc = "the first text content block", []byte(text)
	default:
		return 0, errors.New("result has neither structuredContent nor a text content block")
	}
	v, err := decodeJSON(doc)
	if err != nil {
		return 0, fmt.Errorf("%s is not JSON: %w", src, err)
	}
	v, err = ptr.Resolve(v)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", src, err)
	}
	n, ok := v.(json.Number)
	if !ok {
		return 0, fmt.Errorf("%s: json pointer %q refers to %s, not a number", src, ptr.String(), describeJSON(v))
	}
	f, err := strconv.ParseFloat(n.String(), 64)
	if err != nil {
		return 0, fmt.Errorf("%s: json pointer %q: number %s is out of range", src, ptr.String(), n)
	}
	return f, nil
}

// decodeJSON decodes exactly one JSON value, keeping numbers as
// json.Number.
func decodeJSON(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("trailing data after the value")
	}
	return v, nil
}
