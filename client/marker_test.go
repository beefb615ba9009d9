package client

import (
	"testing"
)

func TestDecodeCallResultMarker(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, raw, want string
	}{
		{name: "echoed", raw: `{"content":[{"type":"text","text":"hi"}],"_meta":{"dev.mcpchaos/call":"r1.7.0"}}`, want: "r1.7.0"},
		{name: "among other keys", raw: `{"_meta":{"a":{"b":[1]},"dev.mcpchaos/call":"r1.8.1","z":null},"isError":false}`, want: "r1.8.1"},
		{name: "absent", raw: `{"content":[]}`},
		{name: "not a string", raw: `{"_meta":{"dev.mcpchaos/call":17}}`},
		{name: "meta not an object", raw: `{"_meta":"dev.mcpchaos/call"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var sc scanner
			var r Result
			if err := decodeCallResult(&sc, []byte(tc.raw), &r); err != nil {
				t.Fatalf("decode %s: %v", tc.raw, err)
			}
			if string(r.Marker) != tc.want {
				t.Errorf("Marker = %q, want %q", r.Marker, tc.want)
			}
		})
	}
}

func TestAppendMarker(t *testing.T) {
	t.Parallel()
	if got := string(AppendMarker([]byte("x"), Marker{Run: "k3f", Seq: 12, Attempt: 1})); got != "xk3f.12.1" {
		t.Errorf("AppendMarker = %q, want %q", got, "xk3f.12.1")
	}
}
