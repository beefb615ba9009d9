package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"sort"
	"sync"
	"time"

	"github.com/mcpchaos/mcpchaos/client"
	"github.com/mcpchaos/mcpchaos/client/vocab"
	"github.com/mcpchaos/mcpchaos/internal/scenarios"
)

// answers are the client's canned answers to a server's input requests,
// from the scenario's client section. They serve both eras: a 2025
// server's requests (client.InputAnswerer, whose think times are drawn from
// shared, a generator seeded by the run's seed) and the inputRequests of
// a 2026 input_required result (respond, drawing from the call's own).
type answers struct {
	c      *scenarios.Client
	shared *sharedRand
	forms  *formCache // nil: content is not checked
}

// sharedRand is a generator several goroutines draw from.
type sharedRand struct {
	mu sync.Mutex
	r  *rand.Rand
}

// newAnswers returns the answers of c, their shared draws seeded by seed.
func newAnswers(c *scenarios.Client, seed int64) answers {
	return answers{c: c, shared: &sharedRand{r: rand.New(rand.NewPCG(uint64(seed), 0x616e7377657273))}, forms: &formCache{}}
}

// capabilities is the ClientCapabilities object the answers declare.
func (a answers) capabilities() []byte {
	caps := map[string]any{}
	if a.elicits() {
		caps["elicitation"] = map[string]any{"form": map[string]any{}}
	}
	if a.c.Sampling != nil {
		caps["sampling"] = map[string]any{}
	}
	if a.c.HasRoots {
		caps["roots"] = map[string]any{}
	}
	b, _ := json.Marshal(caps)
	return b
}

// elicits reports whether elicitation is declared.
func (a answers) elicits() bool { return a.c.Elicitation != nil }

// AnswerInput implements client.InputAnswerer.
func (a answers) AnswerInput(tool, method string, params []byte) ([]byte, time.Duration, bool) {
	a.shared.mu.Lock()
	defer a.shared.mu.Unlock()
	return a.answer(tool, method, params, a.shared.r)
}

// answer builds the result that answers one input request of method, and
// draws its think time from rng.
func (a answers) answer(tool, method string, params []byte, rng *rand.Rand) ([]byte, time.Duration, bool) {
	switch method {
	case vocab.MethodElicit:
		e := a.c.ElicitationFor(tool)
		if e == nil || !formMode(params) {
			return nil, 0, false
		}
		out := map[string]any{"action": e.Action}
		if e.Action == scenarios.ElicitAccept {
			content := e.Content
			if e.Generate && a.forms != nil {
				content = a.forms.generate(params, content)
			}
			if content == nil {
				content = map[string]any{}
			}
			out["content"] = content
		}
		b, _ := json.Marshal(out)
		return b, e.Think.Sample(rng), true
	case vocab.MethodSampling:
		s := a.c.SamplingFor(tool)
		if s == nil {
			return nil, 0, false
		}
		b, _ := json.Marshal(map[string]any{"role": "assistant", "model": s.Model, "stopReason": s.StopReason,
			"content": map[string]any{"type": "text", "text": s.Text}})
		return b, s.Think.Sample(rng), true
	case vocab.MethodRoots:
		if !a.c.HasRoots {
			return nil, 0, false
		}
		b, _ := json.Marshal(map[string]any{"roots": a.c.Roots})
		return b, 0, true
	}
	return nil, 0, false
}

// formMode reports whether an elicitation asks for a form (the mode we
// declare), not for a URL to open.
func formMode(params []byte) bool {
	var p struct {
		Mode string `json:"mode"`
	}
	_ = json.Unmarshal(params, &p)
	return p.Mode == "" || p.Mode == "form"
}

// roundAnswer is what respond made of one input_required result.
type roundAnswer struct {
	responses []byte         // the inputResponses object
	think     time.Duration  // the sum of the answers' think times
	kinds     map[string]int // the requests, by kind
	// undeclared names the kinds asked for that we did not declare.
	undeclared []string
	// mismatches counts accepted forms whose content does not fit the
	// form's requestedSchema (formcheck.go).
	mismatches int
}

// errBadInputRequests: inputRequests is not an object of {method, params}.
var errBadInputRequests = errors.New("inputRequests is not an object of {method, params} requests")

// respond answers the inputRequests of a 2026 input_required result, an
// object of {"method", "params"} keyed by the server's ids: the responses
// are keyed the same. Think times add up (one person answers one request
// after the other).
func (a answers) respond(tool string, inputRequests []byte, rng *rand.Rand) (roundAnswer, error) {
	var reqs map[string]struct {
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	if err := json.Unmarshal(inputRequests, &reqs); err != nil {
		return roundAnswer{}, fmt.Errorf("%w: %v", errBadInputRequests, err)
	}
	out := roundAnswer{kinds: map[string]int{}}
	responses := make(map[string]json.RawMessage, len(reqs))
	keys := make([]string, 0, len(reqs))
	for k := range reqs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		r := reqs[k]
		kind := client.InputKind(r.Method)
		if kind == "" {
			return roundAnswer{}, fmt.Errorf("%w: inputRequests[%q] has method %q", errBadInputRequests, k, r.Method)
		}
		out.kinds[kind]++
		result, think, declared := a.answer(tool, r.Method, r.Params, rng)
		if !declared {
			out.undeclared = append(out.undeclared, kind)
			continue
		}
		responses[k] = result
		out.think += think
		if e := a.c.ElicitationFor(tool); r.Method == vocab.MethodElicit && a.forms != nil && e.Action == scenarios.ElicitAccept && !a.forms.fits(r.Params, sentContent(result)) {
			out.mismatches++
		}
	}
	out.responses, _ = json.Marshal(responses)
	return out, nil
}
