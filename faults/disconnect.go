package faults

import (
	"fmt"
	"math/rand/v2"

	"github.com/mcpchaos/mcpchaos/mcp"
)

// Disconnect drops the transport under a call: on HTTP it closes the
// call's connection with a FIN (mode fin) or resets it (mode rst); on
// stdio it closes the server's stdin (mode close) or kills its process
// group (mode kill), which ends every call on that process, and a new
// process is started for later calls.
//
// In 2026-07-28 a closed HTTP stream is a cancel: a correct server MUST
// stop the call's work. In the 2025 revisions it is not: leftover work
// after a plain disconnect is expected legacy behaviour, reported but not
// a violation. On stdio a correct server exits promptly on stdin EOF and
// leaves no child processes or CPU burning behind.
type Disconnect struct {
	perCall
	mode mcp.AbortMode
}

func newDisconnect(pc perCall) (*Disconnect, error) {
	mode, ok := abortMode(pc.spec.Mode)
	if !ok {
		return nil, fmt.Errorf("disconnect: unknown mode %q", pc.spec.Mode)
	}
	return &Disconnect{pc, mode}, nil
}

func (f *Disconnect) Kind() string         { return "disconnect" }
func (f *Disconnect) Direction() Direction { return Transport }

func (f *Disconnect) Draw(rng *rand.Rand, info Info) (When, bool) { return f.draw(rng, info) }

func (f *Disconnect) Act(c Call, info Info) (string, error) {
	mode := f.mode
	// A mode for the other transport falls back to that transport's
	// gentle form, so one scenario can run against either.
	switch {
	case info.Transport == "stdio" && (mode == mcp.AbortFIN || mode == mcp.AbortRST):
		mode = mcp.AbortClose
	case info.Transport == "http" && (mode == mcp.AbortClose || mode == mcp.AbortKill):
		mode = mcp.AbortFIN
	}
	return mode.String(), c.Disconnect(mode)
}

// Mode returns the configured abort mode.
func (f *Disconnect) Mode() mcp.AbortMode { return f.mode }
