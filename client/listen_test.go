package client

import (
	"net/http"
	"strings"
	"testing"

	"github.com/mcpchaos/mcpchaos/client/vocab"
)

// TestListenTasks: a subscriptions/listen stream's messages reach the
// observer as EvListen; a notifications/cancelled naming the listen
// request ends it without a violation (the one a 2026 server may send),
// one naming another request is a server_cancel violation as anywhere.
// The request asks for the task's id with the tasks extension declared.
func TestListenTasks(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		cancelFor string // the requestId the server's notifications/cancelled names; "": the listen's own
		violation bool
	}{
		{"ended by the server", "", false},
		{"cancel for another request", "999", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := startFake(t, func(w http.ResponseWriter, req fakeReq) bool {
				if req.Method != vocab.MethodSubscriptionsListen {
					return false
				}
				id := string(req.ID)
				if tt.cancelFor != "" {
					id = tt.cancelFor
				}
				meta := `"_meta":{"io.modelcontextprotocol/subscriptionId":` + string(req.ID) + `}`
				writeSSE(w,
					`{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{`+meta+`,"notifications":{"taskIds":["t1"]}}}`,
					`{"jsonrpc":"2.0","method":"notifications/tasks","params":{`+meta+`,"taskId":"t1","status":"completed","result":{"content":[]}}}`,
					`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":`+id+`}}`)
				return true
			})
			c := dialFake(t, f, Config{})
			rec := newRecorder()
			call, err := c.ListenTasks(ctxT(t), []string{"t1"}, rec)
			if err != nil {
				t.Fatal(err)
			}
			waitCall(t, call)
			evs := rec.waitEnd(t)
			var methods []string
			for _, ev := range ofKind(evs, EvListen) {
				methods = append(methods, ev.Detail)
			}
			want := "notifications/subscriptions/acknowledged notifications/tasks"
			if !tt.violation {
				want += " notifications/cancelled"
			}
			if got := strings.Join(methods, " "); got != want {
				t.Errorf("listen events %q, want %q", got, want)
			}
			if hasViolation(evs, ViolServerCancel) != tt.violation {
				t.Errorf("server_cancel violation %v, want %v (events %s)", hasViolation(evs, ViolServerCancel), tt.violation, describe(evs))
			}
			var sent fakeReq
			for _, r := range f.requests() {
				if r.Method == vocab.MethodSubscriptionsListen {
					sent = r
				}
			}
			if !strings.Contains(string(sent.Body), `"notifications":{"taskIds":["t1"]}`) ||
				!strings.Contains(string(sent.Params.Meta[vocab.MetaClientCapabilities]), vocab.ExtTasks) {
				t.Errorf("listen request %s: want taskIds [t1] and the tasks extension declared", sent.Body)
			}
		})
	}
}

// TestDecodeSubscriptionID: how a listen stream's notification is told
// apart on stdio, by the listen request's id in params._meta.
func TestDecodeSubscriptionID(t *testing.T) {
	tests := []struct {
		name   string
		params string
		id     int64
		ok     bool
	}{
		{"in _meta", `{"taskId":"t","_meta":{"x":1,"io.modelcontextprotocol/subscriptionId":7}}`, 7, true},
		{"after nested values", `{"a":{"io.modelcontextprotocol/subscriptionId":1},"_meta":{"io.modelcontextprotocol/subscriptionId":8}}`, 8, true},
		{"not in _meta", `{"io.modelcontextprotocol/subscriptionId":7}`, 0, false},
		{"a string id (not ours)", `{"_meta":{"io.modelcontextprotocol/subscriptionId":"7"}}`, 0, false},
		{"no _meta", `{"taskId":"t"}`, 0, false},
		{"_meta not an object", `{"_meta":3}`, 0, false},
		{"not an integer", `{"_meta":{"io.modelcontextprotocol/subscriptionId":1.5}}`, 0, false},
		{"not JSON", `{"_meta":{`, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var sc scanner
			id, ok := decodeSubscriptionID(&sc, []byte(tt.params))
			if id != tt.id || ok != tt.ok {
				t.Errorf("decodeSubscriptionID(%s) = %d, %v; want %d, %v", tt.params, id, ok, tt.id, tt.ok)
			}
		})
	}
}
