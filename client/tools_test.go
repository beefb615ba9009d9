package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/client/vocab"
)

// toolsPager answers tools/list with pages chosen by next: given the
// cursor asked for ("" first), it returns the page's tool names and the
// next cursor (nil: the last page).
func toolsPager(t *testing.T, next func(cursor string) ([]string, *string)) *fake {
	return startFake(t, func(w http.ResponseWriter, req fakeReq) bool {
		if req.Method != vocab.MethodToolsList {
			return false
		}
		var body struct {
			Params struct {
				Cursor string `json:"cursor"`
			} `json:"params"`
		}
		_ = json.Unmarshal(req.Body, &body)
		names, cur := next(body.Params.Cursor)
		var tools []string
		for _, n := range names {
			tools = append(tools, `{"name":"`+n+`","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":true}}`)
		}
		res := `{"tools":[` + strings.Join(tools, ",") + `],"ttlMs":0,"cacheScope":"public","resultType":"complete"`
		if cur != nil {
			res += `,"nextCursor":` + strconv.Quote(*cur)
		}
		writeJSON(w, 200, `{"jsonrpc":"2.0","id":`+string(req.ID)+`,"result":`+res+`}}`)
		return true
	})
}

func TestListToolPages(t *testing.T) {
	t.Parallel()
	str := func(s string) *string { return &s }
	tests := []struct {
		name      string
		next      func(cursor string) ([]string, *string)
		wantTools int
		wantPages int
		wantErr   string
	}{
		{name: "one page", next: func(string) ([]string, *string) { return []string{"a", "b"}, nil }, wantTools: 2, wantPages: 1},
		{name: "three pages followed to the end", next: func(c string) ([]string, *string) {
			switch c {
			case "":
				return []string{"a"}, str("p2")
			case "p2":
				return []string{"b"}, str("p3")
			}
			return []string{"c"}, str("")
		}, wantTools: 3, wantPages: 3},
		{name: "a repeated cursor", next: func(c string) ([]string, *string) { return []string{"a"}, str("again") },
			wantErr: "page 2 repeats the cursor `again` of an earlier page"},
		{name: "pages without end", next: func(c string) ([]string, *string) {
			n, _ := strconv.Atoi(c)
			return nil, str(strconv.Itoa(n + 1))
		}, wantErr: fmt.Sprintf("the list has more than %d pages", MaxToolPages)},
		{name: "too many tools", next: func(c string) ([]string, *string) {
			names := make([]string, MaxTools+1)
			for i := range names {
				names[i] = "t" + strconv.Itoa(i)
			}
			return names, nil
		}, wantErr: fmt.Sprintf("more than %d tools", MaxTools)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := toolsPager(t, tt.next)
			c := dialFake(t, f, Config{})
			l, err := c.ListToolPages(ctxT(t))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(l.Tools) != tt.wantTools || len(l.Pages) != tt.wantPages {
				t.Fatalf("%d tools on %d pages, want %d on %d", len(l.Tools), len(l.Pages), tt.wantTools, tt.wantPages)
			}
			for _, tool := range l.Tools {
				if !strings.Contains(string(tool.Raw), `"name":"`+tool.Name+`"`) || string(tool.Annotations) != `{"readOnlyHint":true}` {
					t.Errorf("tool %s: raw %s, annotations %s", tool.Name, tool.Raw, tool.Annotations)
				}
			}
			if !strings.Contains(string(l.Pages[0]), `"cacheScope":"public"`) {
				t.Errorf("page 1 is not the raw result: %s", l.Pages[0])
			}
		})
	}
}

// TestListToolPagesCut: a walk whose time runs out after its first pages
// (a server that pages slowly, or stops answering) says that the list did
// not end in the time given, at which page and with how many tools: not
// how little of the time the last page had left.
func TestListToolPagesCut(t *testing.T) {
	t.Parallel()
	str := func(s string) *string { return &s }
	release := make(chan struct{})
	f := toolsPager(t, func(c string) ([]string, *string) {
		n, _ := strconv.Atoi(c)
		if n == 3 {
			<-release // page 4 never comes in the time given
		}
		return []string{"t" + c}, str(strconv.Itoa(n + 1))
	})
	t.Cleanup(func() { close(release) }) // before the server's own cleanup, which waits for its handlers
	c := dialFake(t, f, Config{})
	// Time enough for pages 1 to 3 on a starved machine; page 4 waits
	// it out.
	ctx, cancel := context.WithTimeout(ctxT(t), 10*time.Second)
	defer cancel()
	_, err := c.ListToolPages(ctx)
	if !errors.Is(err, ErrListCut) || !errors.Is(err, context.DeadlineExceeded) ||
		!strings.Contains(err.Error(), "the list did not end in the time given at page 4 (3 tools so far)") ||
		strings.Contains(err.Error(), "timed out after") {
		t.Fatalf("err = %v, want ErrListCut at page 4 with 3 tools", err)
	}
}
