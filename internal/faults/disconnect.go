package faults

import (
	"math/rand/v2"

	"github.com/mcpchaos/mcpchaos/client"
	"github.com/mcpchaos/mcpchaos/internal/faultkinds"
	"github.com/mcpchaos/mcpchaos/internal/scenarios"
)

// Disconnect drops the transport under a call: on HTTP it closes the
// call's connection with a FIN (mode fin, the default) or resets it (mode
// rst); on stdio it closes the server's stdin (mode close, the default)
// or kills its process group (mode kill), which ends every call on that
// process, and a new process is started for later calls.
//
// In 2026-07-28 a closed HTTP stream is a cancel: a correct server MUST
// stop the call's work. In the 2025 revisions it is not: leftover work
// after a plain disconnect is expected legacy behaviour, reported but not
// a violation. On stdio a correct server exits promptly on stdin EOF and
// leaves no child processes or CPU burning behind.
type Disconnect struct {
	perCall
	mode client.AbortMode
}

// abortModes maps the mode key's values, per transport.
var abortModes = map[string]struct {
	mode      client.AbortMode
	transport string
}{
	"fin":   {client.AbortFIN, "http"},
	"rst":   {client.AbortRST, "http"},
	"close": {client.AbortClose, "stdio"},
	"kill":  {client.AbortKill, "stdio"},
}

// disconnectModes are the values of mode, in documentation order.
var disconnectModes = []string{"fin", "rst", "close", "kill"}

var disconnectKind = kind{name: faultkinds.Disconnect, perCall: true, timed: true, cuts: true, keys: []scenarios.Field{{Name: "mode", Type: scenarios.EnumType(disconnectModes...), Doc: "http: fin, rst; stdio: close, kill"}},
	build: func(b builder) Fault {
		def := "fin"
		if b.transport == "stdio" {
			def = "close"
		}
		mode := b.r.Enum("mode", def, disconnectModes...)
		if m := abortModes[mode]; b.transport != "" && m.transport != b.transport {
			b.r.Errorf("mode", "%s does not apply to %s targets (http: fin, rst; stdio: close, kill)", mode, b.transport)
		}
		return &Disconnect{b.perCall(), abortModes[mode].mode}
	}}

func (f *Disconnect) Draw(rng *rand.Rand, info Info) (When, bool) { return f.draw(rng, info) }

func (f *Disconnect) Act(c Call, info Info) (string, error) {
	mode := f.mode
	// A mode for the other transport falls back to that transport's
	// gentle form, so one plan can run against either.
	switch {
	case info.Transport == "stdio" && (mode == client.AbortFIN || mode == client.AbortRST):
		mode = client.AbortClose
	case info.Transport == "http" && (mode == client.AbortClose || mode == client.AbortKill):
		mode = client.AbortFIN
	}
	return mode.String(), c.Disconnect(mode)
}
