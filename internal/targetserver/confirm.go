package targetserver

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The confirm knob: a deploy tool that asks for confirmation on every
// call before it does its work (slow_task's steps). The first request gets
// input_required: an elicitation form asking for {confirm: boolean} under
// the key ConfirmKey, and a requestState signed by the server. The retry
// runs the work only when it carries the state unaltered and an accepted
// answer with confirm true; any other answer is a tool error. A 2025
// client is asked with elicitation/create instead: the SDK sends it and
// calls the handler again with the answer (its multi-round-trip
// middleware), so one handler serves both eras. A 2026 request that does
// not declare elicitation is refused with -32021, as the spec says.

// ToolDeploy is the tool the confirm knob adds.
const ToolDeploy = "deploy"

// ConfirmKey is the key of the deploy tool's input request.
const ConfirmKey = "confirm"

// codeMissingCapability is MissingRequiredClientCapabilitiesError.
const codeMissingCapability = -32021

func (s *Server) addDeploy(srv *mcp.Server) {
	mcp.AddTool(srv, &mcp.Tool{
		Name: ToolDeploy,
		Description: "Asks for confirmation by elicitation ({confirm: true}), then works like " +
			"slow_task; declined or unconfirmed calls end with a tool error.",
		InputSchema: stepSchema(),
	}, shedding(s, s.deploy(s.stepTool(false))))
}

// deploy wraps the step tool with the confirmation round.
func (s *Server) deploy(work mcp.ToolHandlerFor[stepArgs, any]) mcp.ToolHandlerFor[stepArgs, any] {
	return func(ctx context.Context, req *mcp.CallToolRequest, in stepArgs) (*mcp.CallToolResult, any, error) {
		p := req.Params
		if len(p.InputResponses) == 0 && p.RequestState == "" {
			if caps := req.ClientCapabilities(); caps == nil || caps.Elicitation == nil {
				return nil, nil, missingElicitation()
			}
			s.metrics.confirmAsked.Add(1)
			res := &mcp.CallToolResult{
				InputRequests: mcp.InputRequestMap{ConfirmKey: &mcp.ElicitParams{
					Message:         "Deploy now?",
					RequestedSchema: confirmSchema(),
				}},
				RequestState: s.confirmState(),
			}
			return res, nil, nil
		}
		if why := s.confirmed(p); why != "" {
			s.metrics.notConfirmed.Add(1)
			res := &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "deploy not done: " + why}}}
			markResult(res, req)
			return res, nil, nil
		}
		s.metrics.confirmed.Add(1)
		return work(ctx, req, in)
	}
}

// confirmed returns why a retry does not confirm the deploy, or "".
func (s *Server) confirmed(p *mcp.CallToolParamsRaw) string {
	if !s.validState(p.RequestState) {
		return "requestState missing or altered"
	}
	r, ok := p.InputResponses[ConfirmKey].(*mcp.ElicitResult)
	switch {
	case !ok:
		return "no answer under inputResponses." + ConfirmKey
	case r.Action != "accept":
		return "the confirmation was " + strconv.Quote(r.Action)
	case r.Content["confirm"] != true:
		return "the form's confirm is not true"
	}
	return ""
}

// confirmState returns a new requestState: a number and its signature.
func (s *Server) confirmState() string {
	n := strconv.FormatUint(s.callSeq.Add(1), 10)
	return n + "." + s.sign(n)
}

// validState reports whether st is a requestState this server made.
func (s *Server) validState(st string) bool {
	n, sig, ok := strings.Cut(st, ".")
	return ok && hmac.Equal([]byte(sig), []byte(s.sign(n)))
}

// sign is the hex HMAC of v under a key derived from the seed (a test
// target's state needs to be tamper-evident, not secret).
func (s *Server) sign(v string) string {
	var key [8]byte
	binary.LittleEndian.PutUint64(key[:], uint64(s.cfg.Seed)^0x6d6370636861)
	m := hmac.New(sha256.New, key[:])
	m.Write([]byte(v))
	return hex.EncodeToString(m.Sum(nil)[:16])
}

func confirmSchema() map[string]any {
	return map[string]any{
		"type":       "object",
		"properties": map[string]any{"confirm": map[string]any{"type": "boolean", "description": "deploy now"}},
		"required":   []string{"confirm"},
	}
}

// missingElicitation is the -32021 error of a 2026 request that did not
// declare elicitation.
func missingElicitation() error {
	data, _ := json.Marshal(mcp.MissingRequiredClientCapabilityData{
		RequiredCapabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{}},
	})
	return &jsonrpc.Error{Code: codeMissingCapability, Message: "deploy needs the elicitation capability", Data: data}
}
