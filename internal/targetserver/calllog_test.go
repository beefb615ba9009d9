package targetserver

import (
	"testing"
)

func TestTagCallID(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"call", `{"jsonrpc":"2.0","id":17,"method":"tools/call","params":{"name":"echo"}}`,
			`{"id":17,"jsonrpc":"2.0","method":"tools/call","params":{"_meta":{"dev.mcpchaos/request-id":17},"name":"echo"}}`},
		{"meta kept", `{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"echo","_meta":{"progressToken":"p1"}}}`,
			`{"id":"a","jsonrpc":"2.0","method":"tools/call","params":{"_meta":{"dev.mcpchaos/request-id":"a","progressToken":"p1"},"name":"echo"}}`},
		{"notification", `{"jsonrpc":"2.0","method":"tools/call","params":{}}`, `{"jsonrpc":"2.0","method":"tools/call","params":{}}`},
		{"other method", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`},
		{"not JSON", `{"method":"tools/call",`, `{"method":"tools/call",`},
		{"params not an object", `{"id":1,"method":"tools/call","params":[1]}`, `{"id":1,"method":"tools/call","params":[1]}`},
		{"batch", `[{"id":1,"method":"tools/call","params":{}}]`, `[{"id":1,"method":"tools/call","params":{}}]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(tagCallID([]byte(tt.in))); got != tt.want {
				t.Errorf("tagCallID(%s)\n = %s\nwant %s", tt.in, got, tt.want)
			}
		})
	}
}
