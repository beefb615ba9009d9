package scenarios

import (
	"sort"
)

// Client is the scenario's client section: the canned answers the client
// gives when a server asks it for input (elicitation, and the deprecated
// sampling and roots), and how many rounds of input one call may take.
// Each kind written here is declared as a client capability: in 2026 in
// every request's _meta, in 2025 in initialize. See docs/long-running.md.
type Client struct {
	Elicitation *Elicitation // nil: elicitation is not declared (unless by_tool has it)
	Sampling    *Sampling    // nil: sampling is not declared
	// Roots is the answer to roots/list; declared when HasRoots (an empty
	// list is an answer too).
	Roots    []Root
	HasRoots bool
	// MaxRounds bounds the retries one call makes to answer input_required
	// (and load shedding) results; default DefaultMaxRounds.
	MaxRounds int
	// ByTool overrides the answers for the calls of one tool.
	ByTool map[string]ToolAnswers
	Pos    Pos
}

// Elicitation is the answer to an elicitation request.
type Elicitation struct {
	Action  string         // ElicitAccept (default), ElicitDecline or ElicitCancel
	Content map[string]any // the form's values; only with accept
	// Generate fills in the fields Content leaves out from the form's
	// requestedSchema (engine/formcheck.go); only with accept.
	Generate bool
	// Think is how long "the person" takes before answering: a duration,
	// uniform(LOW, HIGH) or exp(MEAN), drawn from the seed.
	Think Dist
}

// Sampling is the answer to a (deprecated) sampling/createMessage request.
type Sampling struct {
	Text       string // the assistant message's text
	Model      string // default DefaultSamplingModel
	StopReason string // default "endTurn"
	Think      Dist
}

// Root is one entry of the answer to roots/list.
type Root struct {
	URI  string `json:"uri"`
	Name string `json:"name,omitempty"`
}

// ToolAnswers are the answers for one tool's calls.
type ToolAnswers struct {
	Elicitation *Elicitation
	Sampling    *Sampling
}

// The actions of an elicitation answer.
const (
	ElicitAccept  = "accept"
	ElicitDecline = "decline"
	ElicitCancel  = "cancel"
)

// Defaults of the client section.
const (
	DefaultMaxRounds     = 10
	MaxRounds            = 100
	DefaultSamplingModel = "mcpchaos-canned"
	DefaultStopReason    = "endTurn"
)

var elicitActions = []string{ElicitAccept, ElicitDecline, ElicitCancel}

func clientFields() fields {
	return fields{
		{Name: "elicitation", Type: objectOf(elicitationFields()), Doc: "the answer to elicitation requests (declares the elicitation capability)"},
		{Name: "sampling", Type: objectOf(samplingFields()), Doc: "the answer to sampling/createMessage requests (deprecated in 2026; declares sampling)"},
		{Name: "roots", Type: ListOf(objectOf(rootFields())), Doc: "the answer to roots/list (deprecated in 2026; declares roots)"},
		{Name: "max_rounds", Type: IntBetweenType(1, MaxRounds), Doc: "how many times one call is retried to answer input_required or load shedding; default 10"},
		{Name: "by_tool", Type: Type{map[string]any{"type": "object", "additionalProperties": objectOf(toolAnswerFields()).s}},
			Doc: "answers for the calls of one tool, by tool name, instead of the ones above"},
	}
}

func elicitationFields() fields {
	return fields{
		{Name: "action", Type: EnumType(elicitActions...), Doc: "accept (default), decline or cancel"},
		{Name: "content", Type: AnyObjectType(), Doc: "the form's values, sent with accept"},
		{Name: "generate", Type: BoolType(), Doc: "fill in the form's fields that content leaves out, made from its requestedSchema (const, default, example, first enum value, or a value of the type within its bounds); with accept only; default false"},
		{Name: "think", Type: DistType(), Doc: "wait this long before answering, as a person would: a duration, uniform(LOW, HIGH) or exp(MEAN); default 0"},
	}
}

func samplingFields() fields {
	return fields{
		{Name: "text", Type: StringType(), Required: true, Doc: "the text of the assistant message returned"},
		{Name: "model", Type: StringType().nonEmpty(), Doc: "the model named in the answer; default mcpchaos-canned"},
		{Name: "stop_reason", Type: StringType().nonEmpty(), Doc: "default endTurn"},
		{Name: "think", Type: DistType(), Doc: "wait this long before answering (a duration or a distribution); default 0"},
	}
}

func rootFields() fields {
	return fields{
		{Name: "uri", Type: StringType().nonEmpty(), Required: true, Doc: "a file:// URI"},
		{Name: "name", Type: StringType(), Doc: "a name to show"},
	}
}

func toolAnswerFields() fields {
	return fields{
		{Name: "elicitation", Type: objectOf(elicitationFields()), Doc: "this tool's elicitation answer"},
		{Name: "sampling", Type: objectOf(samplingFields()), Doc: "this tool's sampling answer"},
	}
}

var (
	clientKeys     = clientFields().names()
	elicitKeys     = elicitationFields().names()
	samplingKeys   = samplingFields().names()
	rootKeys       = rootFields().names()
	toolAnswerKeys = toolAnswerFields().names()
)

// client decodes the client section.
func (d *decoder) client(o *object, at Pos) *Client {
	c := &Client{MaxRounds: DefaultMaxRounds, Pos: at}
	if o.bad {
		return c
	}
	o.known(clientKeys...)
	if o.has("elicitation") {
		c.Elicitation = d.elicitation(o.sub("elicitation"))
	}
	if o.has("sampling") {
		c.Sampling = d.sampling(o.sub("sampling"))
	}
	if o.present("roots") {
		c.HasRoots = true
		c.Roots = []Root{}
		for _, it := range o.items("roots") {
			ro := d.object(it.path, it.pos, it.raw)
			if ro.bad {
				continue
			}
			ro.known(rootKeys...)
			r := Root{Name: ro.stringOr("name", "")}
			r.URI, _ = ro.name("uri")
			c.Roots = append(c.Roots, r)
		}
	}
	c.MaxRounds = int(o.intBetween("max_rounds", DefaultMaxRounds, 1, MaxRounds))
	if o.has("by_tool") {
		c.ByTool = d.byTool(o.sub("by_tool"), c)
	}
	return c
}

func (d *decoder) elicitation(o *object) *Elicitation {
	e := &Elicitation{}
	if o.bad {
		return e
	}
	o.known(elicitKeys...)
	e.Action = o.enum("action", ElicitAccept, elicitActions...)
	if o.has("content") {
		e.Content, _ = o.anyMap("content")
		if e.Action != ElicitAccept {
			o.errf("content", "is sent only with action accept, not %q (leave content out)", e.Action)
		}
	}
	e.Generate = o.boolOr("generate", false)
	if e.Generate && e.Action != ElicitAccept {
		o.errf("generate", "fills in a form, sent only with action accept, not %q (leave generate out)", e.Action)
	}
	e.Think, _ = o.dist("think")
	return e
}

func (d *decoder) sampling(o *object) *Sampling {
	s := &Sampling{}
	if o.bad {
		return s
	}
	o.known(samplingKeys...)
	o.require(samplingFields().required()...)
	s.Text, _ = o.str("text")
	s.Model = o.stringOr("model", DefaultSamplingModel)
	s.StopReason = o.stringOr("stop_reason", DefaultStopReason)
	s.Think, _ = o.dist("think")
	return s
}

// byTool decodes by_tool: a mapping from tool names to answers, each of a
// kind the section also answers for every tool (so the capability
// declared is the same for every call).
func (d *decoder) byTool(o *object, c *Client) map[string]ToolAnswers {
	out := map[string]ToolAnswers{}
	if o.bad {
		return out
	}
	names := make([]string, 0, len(o.list))
	for _, e := range o.list {
		names = append(names, e.key)
	}
	sort.Strings(names)
	for _, name := range names {
		to := o.sub(name)
		if to.bad {
			continue
		}
		to.known(toolAnswerKeys...)
		var a ToolAnswers
		if to.has("elicitation") {
			a.Elicitation = d.elicitation(to.sub("elicitation"))
			if c.Elicitation == nil {
				d.errorf(to.keyAt("elicitation"), join(to.path, "elicitation"), "set client.elicitation too: it is the answer of every other tool")
			}
		}
		if to.has("sampling") {
			a.Sampling = d.sampling(to.sub("sampling"))
			if c.Sampling == nil {
				d.errorf(to.keyAt("sampling"), join(to.path, "sampling"), "set client.sampling too: it is the answer of every other tool")
			}
		}
		out[name] = a
	}
	return out
}

// ElicitationFor returns the elicitation answer for a call of tool (nil:
// elicitation is not declared).
func (c *Client) ElicitationFor(tool string) *Elicitation {
	if a, ok := c.ByTool[tool]; ok && a.Elicitation != nil {
		return a.Elicitation
	}
	return c.Elicitation
}

// SamplingFor returns the sampling answer for a call of tool (nil:
// sampling is not declared).
func (c *Client) SamplingFor(tool string) *Sampling {
	if a, ok := c.ByTool[tool]; ok && a.Sampling != nil {
		return a.Sampling
	}
	return c.Sampling
}
