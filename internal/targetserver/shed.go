package targetserver

import (
	"context"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The load_shed knob: with probability P (one seeded draw per request),
// a work tool's call is handed back with the 2026 load-shedding answer,
// resultType "input_required" with a requestState and no inputRequests
// (the Go SDK writes that for a result whose InputRequests is empty). A
// retry that echoes a state this server made is served, never shed again.
// A 2025 client gets the SDK's error for it ("the server is busy, retry
// later"): the 2025 revisions have no load-shedding answer.

// shedPrefix starts the requestState of a shed call.
const shedPrefix = "shed-"

// shedding wraps a tool handler with the load_shed knob.
func shedding[In any](s *Server, h mcp.ToolHandlerFor[In, any]) mcp.ToolHandlerFor[In, any] {
	if s.cfg.LoadShed <= 0 {
		return h
	}
	return func(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, any, error) {
		p := req.Params
		if st, ok := strings.CutPrefix(p.RequestState, shedPrefix); ok && s.validState(st) {
			s.metrics.shedRetried.Add(1)
			p.RequestState = "" // the tool's own rounds start afresh
			return h(ctx, req, in)
		}
		seq := s.shedSeq.Add(1)
		if rand.New(rand.NewPCG(uint64(s.cfg.Seed)^0x736865640000, seq)).Float64() >= s.cfg.LoadShed {
			return h(ctx, req, in)
		}
		s.metrics.shed.Add(1)
		n := "s" + strconv.FormatUint(seq, 10)
		return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{}, RequestState: shedPrefix + n + "." + s.sign(n)}, nil, nil
	}
}
