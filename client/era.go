package client

import (
	"fmt"
	"strings"

	"github.com/mcpchaos/mcpchaos/client/vocab"
)

// Era is the protocol revision a client speaks with a server.
type Era string

// The revisions mcpchaos speaks (their strings and the modern and legacy
// rules are defined in client/vocab). 2026-07-28 is "modern": no
// handshake, every request carries its own _meta. The earlier revisions
// are "legacy": initialize, and on HTTP a session.
const (
	Era20260728 Era = vocab.Rev20260728
	Era20251125 Era = vocab.Rev20251125
	Era20250618 Era = vocab.Rev20250618
	Era20250326 Era = vocab.Rev20250326
	// Era20241105 is the revision of the HTTP+SSE transport.
	Era20241105 Era = vocab.Rev20241105
)

// Modern reports whether e is 2026-07-28 or later (vocab.IsModern).
func (e Era) Modern() bool { return vocab.IsModern(string(e)) }

// Legacy reports whether e is a revision before 2026-07-28
// (vocab.IsLegacy).
func (e Era) Legacy() bool { return vocab.IsLegacy(string(e)) }

// legacyEras are the legacy revisions we accept from initialize, newest
// first.
var legacyEras = []Era{Era20251125, Era20250618, Era20250326, Era20241105}

// Eras lists every revision this client speaks, newest first.
func Eras() []Era { return append([]Era{Era20260728}, legacyEras...) }

// erasText is Eras for a message: "2026-07-28, 2025-11-25, ...".
func erasText() string {
	names := make([]string, 0, len(legacyEras)+1)
	for _, e := range Eras() {
		names = append(names, string(e))
	}
	return strings.Join(names, ", ")
}

// ParseProtocol parses a scenario's protocol setting: "auto" (or "") or one
// revision. 2024-11-05 makes an HTTP client speak the HTTP+SSE transport.
func ParseProtocol(s string) (Era, error) {
	switch s {
	case "", "auto":
		return "", nil
	case string(Era20260728), string(Era20251125), string(Era20250618), string(Era20241105):
		return Era(s), nil
	}
	return "", fmt.Errorf("unknown protocol %q (want auto, 2026-07-28, 2025-11-25, 2025-06-18 or 2024-11-05)", s)
}

// bestLegacy picks the newest legacy revision both sides support.
func bestLegacy(supported []string) (Era, bool) {
	for _, e := range legacyEras {
		for _, s := range supported {
			if s == string(e) {
				return e, true
			}
		}
	}
	return "", false
}

func supports(list []string, e Era) bool {
	for _, s := range list {
		if s == string(e) {
			return true
		}
	}
	return false
}
