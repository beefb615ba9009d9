package client

import (
	"encoding/json"
	"strings"
	"testing"
)

// The _meta keys a tools/call body can carry.
const (
	metaPV   = "io.modelcontextprotocol/protocolVersion"
	metaCaps = "io.modelcontextprotocol/clientCapabilities"
	metaInfo = "io.modelcontextprotocol/clientInfo"
	metaTok  = "progressToken"
)

// callBody and callParams decode a tools/call request as appendCallBody
// writes it.
type callBody struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      int64           `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
}

type callParams struct {
	Name      json.RawMessage            `json:"name"`
	Arguments json.RawMessage            `json:"arguments"`
	Meta      map[string]json.RawMessage `json:"_meta"`
}

// callBodyCase is one tools/call body appendCallBody writes, and what it
// must hold.
type callBodyCase struct {
	name     string
	era      Era
	args     string
	tok      int64
	marker   Marker
	malform  Malform
	size     int
	valid    bool
	toolName string   // JSON of params.name
	args2    string   // JSON of params.arguments; "" = absent
	meta     []string // keys of params._meta
}

var callBodyCases = []callBodyCase{
	{name: "2026", era: Era20260728, args: `{"a":1}`, valid: true, toolName: `"t"`, args2: `{"a":1}`, meta: []string{metaPV, metaCaps, metaInfo}},
	{name: "2026 progress", era: Era20260728, tok: 9, valid: true, toolName: `"t"`, meta: []string{metaPV, metaCaps, metaInfo, metaTok}},
	{name: "2025", era: Era20251125, args: `{}`, valid: true, toolName: `"t"`, args2: `{}`},
	{name: "2025 progress", era: Era20251125, tok: 9, valid: true, toolName: `"t"`, meta: []string{metaTok}},
	{name: "2025 marker", era: Era20251125, marker: Marker{Run: "r1", Seq: 17, Attempt: 2}, valid: true, toolName: `"t"`, meta: []string{MarkerMeta}},
	{name: "2026 progress marker", era: Era20260728, tok: 9, marker: Marker{Run: "r1", Seq: 3}, valid: true, toolName: `"t"`, meta: []string{metaPV, metaCaps, metaInfo, metaTok, MarkerMeta}},
	{name: "malformed params marker", era: Era20251125, marker: Marker{Run: "r1", Seq: 3}, malform: MalformParams, valid: true, toolName: `42`, args2: `"not an object"`, meta: []string{MarkerMeta}},
	{name: "malformed JSON", era: Era20260728, malform: MalformJSON},
	{name: "malformed params", era: Era20260728, tok: 9, malform: MalformParams, valid: true, toolName: `42`, args2: `"not an object"`, meta: []string{metaPV, metaCaps, metaInfo, metaTok}},
	{name: "missing meta", era: Era20260728, malform: MalformMissingMeta, valid: true, toolName: `"t"`, meta: []string{metaCaps, metaInfo}},
	{name: "oversize", era: Era20260728, args: `{"a":1}`, malform: MalformOversize, size: 10000, valid: true, toolName: `"t"`, meta: []string{metaPV, metaCaps, metaInfo}},
	{name: "oversize no args", era: Era20251125, malform: MalformOversize, size: 500, valid: true, toolName: `"t"`},
}

func TestAppendCallBody(t *testing.T) {
	t.Parallel()
	for _, tc := range callBodyCases {
		t.Run(tc.name, func(t *testing.T) {
			c := &Client{era: tc.era, clientInfo: []byte(`{"name":"n","version":"v"}`)}
			b := c.appendCallBody(nil, 5, "t", []byte(tc.args), tc.tok, tc.marker, tc.malform, tc.size, nil, false)
			if json.Valid(b) != tc.valid {
				t.Fatalf("valid JSON = %v, want %v: %s", !tc.valid, tc.valid, b)
			}
			if !tc.valid {
				return
			}
			var bd callBody
			var p callParams
			if err := json.Unmarshal(b, &bd); err != nil || json.Unmarshal(bd.Params, &p) != nil {
				t.Fatalf("decode %s: %v", b, err)
			}
			if bd.JSONRPC != "2.0" || bd.ID != 5 || bd.Method != "tools/call" || string(p.Name) != tc.toolName {
				t.Errorf("body %s", b)
			}
			switch {
			case tc.malform == MalformOversize:
				if len(b) < tc.size || len(b) > tc.size+200 {
					t.Errorf("oversize body is %d bytes, want about %d", len(b), tc.size)
				}
				var a map[string]any
				if err := json.Unmarshal(p.Arguments, &a); err != nil || a["mcpchaos_padding"] == nil || tc.args != "" && a["a"] != 1.0 {
					t.Errorf("oversize arguments lost: %v", err)
				}
			case string(p.Arguments) != tc.args2:
				t.Errorf("arguments %s, want %s", p.Arguments, tc.args2)
			}
			checkCallMeta(t, tc, b, p.Meta)
		})
	}
}

// checkCallMeta checks the _meta of a tools/call body: its keys, the
// marker, the protocol version and the progress token.
func checkCallMeta(t *testing.T, tc callBodyCase, b []byte, meta map[string]json.RawMessage) {
	t.Helper()
	if len(meta) != len(tc.meta) {
		t.Errorf("_meta %v, want keys %v", meta, tc.meta)
	}
	if tc.marker.Run != "" {
		want := `"` + string(AppendMarker(nil, tc.marker)) + `"`
		if got := string(meta[MarkerMeta]); got != want {
			t.Errorf("marker %s, want %s", got, want)
		}
	}
	for _, k := range tc.meta {
		if _, ok := meta[k]; !ok {
			t.Errorf("_meta lacks %s: %s", k, b)
		}
	}
	if v, ok := meta[metaPV]; ok && string(v) != `"`+string(tc.era)+`"` {
		t.Errorf("protocolVersion %s", v)
	}
	if v, ok := meta[metaTok]; ok && string(v) != `"p9"` {
		t.Errorf("progressToken %s", v)
	}
}

func TestAppendRequestAndCancelled(t *testing.T) {
	t.Parallel()
	c := &Client{era: Era20251125, clientInfo: []byte(`{}`)}
	for _, tc := range []struct{ got, want string }{
		{string(c.appendRequest(nil, 3, "tools/list", nil, metaOptions{})), `{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{}}`},
		{string(c.appendRequest(nil, 3, "tools/list", []byte(`"cursor":"x"`), metaOptions{})), `{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"cursor":"x"}}`},
		{string(c.appendRequest(nil, 3, "x", []byte(`"a":1`), metaOptions{progressTok: 3})), `{"jsonrpc":"2.0","id":3,"method":"x","params":{"a":1,"_meta":{"progressToken":"p3"}}}`},
		{string(appendCancelled(nil, 12, "")), `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":12}}`},
		{string(appendCancelled(nil, 12, `timed "out"`)), `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":12,"reason":"timed \"out\""}}`},
	} {
		if tc.got != tc.want {
			t.Errorf("got  %s\nwant %s", tc.got, tc.want)
		}
	}
	modern := &Client{era: Era20260728, clientInfo: []byte(`{"name":"n"}`)}
	b := modern.appendRequest(nil, 1, "server/discover", nil, metaOptions{modern: true})
	if !json.Valid(b) || !strings.Contains(string(b), `"params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"`) {
		t.Errorf("discover body %s", b)
	}
}

// TestEncodeCallAllocs: a tools/call body and a cancel, written into a
// reused buffer through rpcmsg's Append functions, allocate nothing.
func TestEncodeCallAllocs(t *testing.T) {
	c := &Client{era: Era20260728, clientInfo: []byte(`{"name":"n","version":"v"}`)}
	args := []byte(`{"text":"hi"}`)
	buf := make([]byte, 0, 4096)
	if a := testing.AllocsPerRun(1000, func() {
		b := c.appendCallBody(buf[:0], 42, "echo", args, 42, Marker{Run: "r1", Seq: 7}, MalformNone, 0, nil, false)
		_ = appendCancelled(b[:0], 42, "timeout")
	}); a != 0 {
		t.Errorf("%v allocations per call body, want 0", a)
	}
}
