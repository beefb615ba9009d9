package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcpchaos/mcpchaos/client/rpcmsg"
	"github.com/mcpchaos/mcpchaos/client/vocab"
)

// Bounds of a tools/list walk: a server that pages for ever, repeats a
// cursor or lists absurdly many tools ends the walk with an error that
// says which bound it hit, never an endless loop or an unbounded memory.
const (
	// MaxToolPages is the most tools/list pages followed.
	MaxToolPages = 1000
	// MaxTools is the most tools kept over every page.
	MaxTools = 10000
	// MaxToolListBytes is the most result bytes kept over every page (each
	// page is also bounded by Config.MaxMessageBytes).
	MaxToolListBytes = 64 << 20
)

// ToolList is the server's whole tool list.
type ToolList struct {
	// Tools are the tools a client may call: on 2026 Streamable HTTP,
	// those whose x-mcp-header annotations keep the spec's rules.
	Tools []Tool
	// Rejected are the tools left out of Tools, with the reason: the spec
	// says a Streamable HTTP client MUST exclude them from tools/list.
	Rejected []RejectedTool
	// All is every tool listed, in the server's order.
	All []Tool
	// Pages holds each page's result object as the server sent it.
	Pages []json.RawMessage
}

// RejectedTool is a tool whose x-mcp-header annotations break the rules.
type RejectedTool struct {
	Name   string
	Reason error
}

func (r RejectedTool) String() string {
	return fmt.Sprintf("tool %q is left out: its x-mcp-header annotations break the spec's rules (%v), and a Streamable HTTP client must not use it", r.Name, r.Reason)
}

// ErrListCut is a tools/list walk whose context ended while pages were
// still coming: a list without end, or a server that stopped answering
// after its first pages. The caller names the time it gave the walk.
var ErrListCut = errors.New("the list did not end in the time given")

// ListTools returns the server's tools, every page, without the rejected
// ones (see ToolList).
func (c *Client) ListTools(ctx context.Context) ([]Tool, error) {
	l, err := c.ListToolPages(ctx)
	if err != nil {
		return nil, err
	}
	return l.Tools, nil
}

// ListToolPages follows tools/list from the first page to the last, within
// MaxToolPages, MaxTools and MaxToolListBytes. On 2026 Streamable HTTP,
// tools whose x-mcp-header annotations break the rules are moved from
// Tools to Rejected.
func (c *Client) ListToolPages(ctx context.Context) (*ToolList, error) {
	l, err := c.listToolPages(ctx)
	if err != nil {
		return nil, err
	}
	l.All = l.Tools
	if !c.era.Modern() || c.tr.name() != "http" {
		return l, nil // x-mcp-header is a 2026 Streamable HTTP matter
	}
	l.Tools = make([]Tool, 0, len(l.All))
	for _, t := range l.All {
		if _, err := parseParamHeaders(t.InputSchema); err != nil {
			l.Rejected = append(l.Rejected, RejectedTool{Name: t.Name, Reason: err})
			continue
		}
		l.Tools = append(l.Tools, t)
	}
	return l, nil
}

func (c *Client) listToolPages(ctx context.Context) (*ToolList, error) {
	out := &ToolList{}
	seen := map[string]bool{}
	cursor, size := "", 0
	for page := 1; ; page++ {
		var members []byte
		if cursor != "" {
			members = rpcmsg.AppendString([]byte(`"cursor":`), cursor)
		}
		r := c.roundTrip(ctx, vocab.MethodToolsList, "", members, metaOptions{modern: c.era.Modern()})
		if err := r.failure(vocab.MethodToolsList); err != nil {
			if page > 1 && ctx.Err() != nil {
				// The time was the whole walk's, not this page's: say so
				// (ErrListCut), not how little of it the page had left.
				return nil, fmt.Errorf("tools/list: %w at page %d (%d tools so far): %w", ErrListCut, page, len(out.Tools), ctx.Err())
			}
			if page > 1 {
				return nil, fmt.Errorf("page %d: %w", page, err)
			}
			return nil, err
		}
		var res struct {
			Tools      []json.RawMessage `json:"tools"`
			NextCursor *string           `json:"nextCursor"`
		}
		if err := json.Unmarshal(r.result, &res); err != nil {
			return nil, fmt.Errorf("tools/list: page %d: decode result: %w", page, err)
		}
		size += len(r.result)
		if size > MaxToolListBytes {
			return nil, fmt.Errorf("tools/list: the list is over %d MiB after %d pages; mcpchaos stops there", MaxToolListBytes>>20, page)
		}
		out.Pages = append(out.Pages, r.result)
		for i, raw := range res.Tools {
			var t Tool
			if err := json.Unmarshal(raw, &t); err != nil {
				return nil, fmt.Errorf("tools/list: page %d: tool %d: %w", page, i, err)
			}
			t.Raw = raw
			out.Tools = append(out.Tools, t)
		}
		if len(out.Tools) > MaxTools {
			return nil, fmt.Errorf("tools/list: the server listed more than %d tools (%d pages); mcpchaos stops there", MaxTools, page)
		}
		if res.NextCursor == nil || *res.NextCursor == "" {
			return out, nil
		}
		cursor = *res.NextCursor
		if seen[cursor] {
			return nil, fmt.Errorf("tools/list: page %d repeats the cursor %s of an earlier page: the list would never end", page, quoteFew([]byte(cursor), 64))
		}
		seen[cursor] = true
		if page >= MaxToolPages {
			return nil, fmt.Errorf("tools/list: the list has more than %d pages (%d tools so far); mcpchaos stops there", MaxToolPages, len(out.Tools))
		}
	}
}
