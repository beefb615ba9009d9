package html

import "github.com/mcpchaos/mcpchaos/report"

// areaView is an area of the summary shown only when it happened (the
// input servers asked for, tasks, the gateway): its lines of items, worded
// as the text summary words them (the summary's own Lines).
type areaView struct {
	ID, Title, About string
	Lines            [][]string
}

// areas lists the areas the run had, in the text summary's order.
func areas(s *report.Summary) []areaView {
	var out []areaView
	for _, a := range []areaView{
		{"input", "Input (multi-round-trip calls)", "What servers asked of the client during calls, and what answering cost: the summary's mrtr keys.", s.MRTR.Lines()},
		{"tasks", "Tasks", "The calls the server made tasks of, and how the tasks went: the summary's tasks keys.", s.Tasks.Lines()},
		{"gateway", "Gateway", "What the built-in targets behind the gateway recorded, joined with our calls: the summary's gateway keys.", s.Gateway.Lines()},
	} {
		if a.Lines != nil {
			out = append(out, a)
		}
	}
	return out
}
