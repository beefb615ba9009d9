package targetserver

import (
	"testing"

	"github.com/mcpchaos/mcpchaos/internal/testutil"
)

func TestAnswerIDs(t *testing.T) {
	for _, tt := range []struct {
		name, msg    string
		call, answer string // "" for none
	}{
		{"call, number id", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{}}`, "7", ""},
		{"call, string id", `{"jsonrpc":"2.0","id":"a","method":"tools/call"}`, `"a"`, ""},
		{"call, no id", `{"jsonrpc":"2.0","method":"tools/call"}`, "", ""},
		{"other method", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, "", ""},
		{"result", `{"jsonrpc":"2.0","id":7.0,"result":{}}` + "\n", "", "7"},
		{"error", `{"jsonrpc":"2.0","id":"a","error":{"code":1}}`, "", `"a"`},
		{"notification", `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}`, "", ""},
		{"not JSON", `{"id":`, "", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if id, _ := callID([]byte(tt.msg)); id != tt.call {
				t.Errorf("callID = %q, want %q", id, tt.call)
			}
			if id, _ := answerID([]byte(tt.msg)); id != tt.answer {
				t.Errorf("answerID = %q, want %q", id, tt.answer)
			}
		})
	}
}

// TestAnswerWatch: what waits for an expected answer runs once it is
// written, not before; what waits for an answer nobody expects runs at
// once; forget runs what a closed connection still holds.
func TestAnswerWatch(t *testing.T) {
	var w answerWatch
	conn := &answerConn{}
	k := answerKey{conn, "1"}
	w.expect(k)
	ran := make(chan string, 3)
	w.after(k, func() { ran <- "after write" })
	select {
	case v := <-ran:
		t.Fatalf("%s ran before the answer was written", v)
	default:
	}
	w.written(k)
	if got := testutil.Receive(t, "the function after the write", ran); got != "after write" {
		t.Fatalf("ran %q", got)
	}
	w.after(k, func() { ran <- "unexpected" }) // written already: at once
	testutil.Receive(t, "the function for an answer nobody expects", ran)
	w.expect(answerKey{conn, "2"})
	w.after(answerKey{conn, "2"}, func() { ran <- "forgotten" })
	w.forget(conn)
	testutil.Receive(t, "the function of a forgotten connection", ran)
	if n := len(w.pending); n != 0 {
		t.Errorf("%d answers still pending", n)
	}
}
