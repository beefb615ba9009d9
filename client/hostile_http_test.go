package client

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/mcpchaos/mcpchaos/client/vocab"
)

// hostileHTTPCase scripts the raw answer to one tools/call and checks what
// the client reports.
type hostileHTTPCase struct {
	name     string
	progress bool
	answer   func(w http.ResponseWriter, req fakeReq)
	check    func(t *testing.T, call *Call, evs []Event)
}

// Hostile Streamable HTTP servers: each case scripts the raw answer to one
// tools/call and checks what the client reports. The cases are in
// hostile_http_cases_test.go.
func TestHostileHTTP(t *testing.T) {
	t.Parallel()
	cases := slices.Concat(hostileHTTPForeignCases, hostileHTTPMalformedCases, hostileHTTPStatusCases, hostileHTTPFramingCases)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := startFake(t, func(w http.ResponseWriter, req fakeReq) bool {
				if req.Method != vocab.MethodToolsCall {
					return false
				}
				tc.answer(w, req)
				return true
			})
			c := dialFake(t, f, Config{})
			call, evs := runCall(t, c, "t", tc.progress)
			tc.check(t, call, evs)
			if n := count(evs, EvEnd); n != 1 || evs[len(evs)-1].Kind != EvEnd {
				t.Errorf("want exactly one EvEnd, last: %s", describe(evs))
			}
			if evs[0].Kind != EvHeaders {
				t.Errorf("first event is %s, want headers", evs[0].Kind)
			}
		})
	}
}

func wantViolations(t *testing.T, evs []Event, want ...Violation) {
	t.Helper()
	got := violations(evs)
	if len(got) != len(want) {
		t.Errorf("violations = %v, want %v; events %s", got, want, describe(evs))
		return
	}
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("violations = %v, want %v; events %s", got, want, describe(evs))
			return
		}
	}
}

func wantCleanEnd(t *testing.T, evs []Event) {
	t.Helper()
	if end := lastEnd(t, evs); end.Err != nil {
		t.Errorf("EvEnd err = %v, want nil", end.Err)
	}
}

// wantProtocolEnd checks that the call got no answer and ended with a
// protocol error (the server's fault) whose text holds detail.
func wantProtocolEnd(t *testing.T, evs []Event, detail string) {
	t.Helper()
	end := lastEnd(t, evs)
	if !IsProtocolError(end.Err) || !strings.Contains(end.Err.Error(), detail) || count(evs, EvResult)+count(evs, EvRPCError) != 0 {
		t.Errorf("want no answer and a protocol error naming %q, got %s", detail, describe(evs))
	}
}
