package targetserver

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Tool names.
const (
	ToolEcho     = "echo"
	ToolSlowTask = "slow_task"
	ToolCPUTask  = "cpu_task"
	ToolInflight = "inflight"
)

// Defaults and limits of the step tools' arguments.
const (
	DefaultSteps  = 10
	DefaultStepMs = 100
	MaxSteps      = 100_000
	MaxStepMs     = 600_000 // ten minutes
)

// stepArgs are the arguments of slow_task and cpu_task. The SDK fills in the
// schema defaults before the handler sees them.
type stepArgs struct {
	Steps  int `json:"steps"`
	StepMs int `json:"step_ms"`
}

// validate rejects negative or absurd values. endless calls need a step
// length, or they would spin.
func (a stepArgs) validate(endless bool) error {
	if a.Steps < 0 || a.Steps > MaxSteps {
		return fmt.Errorf("invalid steps %d: want 0 to %d", a.Steps, MaxSteps)
	}
	if a.StepMs < 0 || a.StepMs > MaxStepMs {
		return fmt.Errorf("invalid step_ms %d: want 0 to %d", a.StepMs, MaxStepMs)
	}
	if endless && a.StepMs == 0 {
		return fmt.Errorf("invalid step_ms 0: an endless target needs a step length of at least 1")
	}
	return nil
}

type echoArgs struct {
	Text string `json:"text"`
}

// inflightResult is the structured result of the inflight tool.
type inflightResult struct {
	Inflight int64 `json:"inflight"`
}

func stepSchema() map[string]any {
	return map[string]any{
		"type": "object",
		"properties": map[string]any{
			"steps": map[string]any{
				"type": "integer", "default": DefaultSteps, "minimum": 0, "maximum": MaxSteps,
				"description": "number of steps; one progress notification after each",
			},
			"step_ms": map[string]any{
				"type": "integer", "default": DefaultStepMs, "minimum": 0, "maximum": MaxStepMs,
				"description": "length of one step in milliseconds",
			},
		},
	}
}

// addTools registers the four tools on srv, and deploy with the confirm
// knob (confirm.go).
func (s *Server) addTools(srv *mcp.Server) {
	mcp.AddTool(srv, &mcp.Tool{
		Name:        ToolEcho,
		Description: "Answers at once with the given text.",
		InputSchema: map[string]any{
			"type":       "object",
			"properties": map[string]any{"text": map[string]any{"type": "string"}},
			"required":   []string{"text"},
		},
	}, shedding(s, s.echo))
	mcp.AddTool(srv, &mcp.Tool{
		Name: ToolSlowTask,
		Description: "Waits steps × step_ms, sending a progress notification after each step " +
			"when the call carries a progress token. Stops when cancelled.",
		InputSchema: stepSchema(),
	}, shedding(s, s.stepTool(false)))
	mcp.AddTool(srv, &mcp.Tool{
		Name: ToolCPUTask,
		Description: "Like slow_task, but each step burns CPU for step_ms, so leftover work " +
			"shows in the process's CPU time.",
		InputSchema: stepSchema(),
	}, shedding(s, s.stepTool(true)))
	mcp.AddTool(srv, &mcp.Tool{
		Name: ToolInflight,
		Description: "Returns the number of echo, slow_task and cpu_task calls running now " +
			"(leaked ones included); this call does not count itself.",
		InputSchema: map[string]any{"type": "object"},
	}, s.inflight)
	if s.cfg.Confirm {
		s.addDeploy(srv)
	}
}

func (s *Server) echo(_ context.Context, req *mcp.CallToolRequest, in echoArgs) (*mcp.CallToolResult, any, error) {
	s.metrics.started.Add(1)
	s.metrics.inflight.Add(1)
	defer s.metrics.inflight.Add(-1)
	s.metrics.completed.Add(1)
	s.calls.ended(req, true)
	s.beginCall(req).ended(true)
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}
	markResult(res, req)
	return res, nil, nil
}

// inflight is not counted in any metric: it is the probe, not the work.
func (s *Server) inflight(context.Context, *mcp.CallToolRequest, any) (*mcp.CallToolResult, inflightResult, error) {
	return nil, inflightResult{Inflight: s.metrics.inflight.Load()}, nil
}

// stepTool returns the handler of slow_task (burn false) or cpu_task.
func (s *Server) stepTool(burn bool) mcp.ToolHandlerFor[stepArgs, any] {
	return func(ctx context.Context, req *mcp.CallToolRequest, in stepArgs) (*mcp.CallToolResult, any, error) {
		if err := in.validate(s.cfg.Endless); err != nil {
			return nil, nil, err // the SDK turns this into a tool error
		}
		truth := s.beginCall(req)
		c := s.newCall(ctx, req.Params.GetProgressToken(), req.Session.NotifyProgress, in, burn || s.cfg.BurnCPU)
		c.truth = truth
		if s.cfg.ProgressAfterResponse {
			c.answer, c.answerKnown = answerKeyOf(ctx, req)
		}
		res, err := c.run()
		s.calls.ended(req, err == nil)
		truth.ended(err == nil)
		markResult(res, req)
		return res, nil, err
	}
}
