package scenarios

import (
	"encoding/json"
	"maps"
	"slices"

	"github.com/mcpchaos/mcpchaos/internal/redact"
)

// Secrets. While decoding, the decoder collects into a redact.Set every
// value that outputs must not show (Scenario.Secrets, docs/secrets.md):
//
//   - every value an environment reference (${VAR}) expanded to, wherever
//     it stands (recorded by the lookup itself);
//   - every header value of target.http.headers, with its credentials
//     alone for "Scheme credentials" values (redact.HeaderSecrets);
//   - every value of target.stdio.env;
//   - the credentials of every URL: target.http.url, metric probe URLs, and
//     URLs inside header values, env values and command arguments (the
//     password or lone user name, and query parameters with secret-looking
//     names; the URL itself, so that it is masked whole wherever it
//     appears: redact.Set.AddURL).
//
// The decoder's own errors are redacted with the set before Parse returns
// them, since no caller has the set yet; Echo is the scenario as the
// results header records it, with every header and env value masked.

// newSecretLookup wraps lookup so that every value it returns is recorded
// as a secret in set.
func newSecretLookup(set *redact.Set, lookup func(string) (string, bool)) func(string) (string, bool) {
	if lookup == nil {
		return nil
	}
	return func(name string) (string, bool) {
		v, ok := lookup(name)
		if ok {
			set.Add(v)
			set.AddURL(v)
		}
		return v, ok
	}
}

// collectSecrets adds the secrets of the decoded (maybe partial) scenario
// s to d.secrets.
func (d *decoder) collectSecrets(s *Scenario) {
	set := d.secrets
	if h := s.Target.HTTP; h != nil {
		AddHTTPSecrets(set, h.URL, h.Headers)
	}
	if st := s.Target.Stdio; st != nil {
		for _, v := range st.Env {
			set.Add(v)
			set.AddURL(v)
		}
		set.AddURL(st.Command...)
	}
	for _, p := range s.Orphans.Probes {
		if p.Metric != nil {
			set.AddURL(p.Metric.URL)
		}
	}
	if s.Gateway != nil {
		set.AddURL(s.Gateway.Truth...)
	}
}

// AddHTTPSecrets adds to set the secrets of an HTTP target: the
// credentials of its URL (and the URL, masked whole wherever it appears)
// and every header value. A scenario's target is added while it is
// decoded; tools and init add the target they are given.
func AddHTTPSecrets(set *redact.Set, url string, headers map[string]string) {
	set.AddURL(url)
	for _, v := range headers {
		set.Add(redact.HeaderSecrets(v)...)
		set.AddURL(v)
	}
}

// redacted returns the errors with every secret of set masked.
func (l Errors) redacted(set *redact.Set) Errors {
	for _, e := range l {
		e.Msg = set.String(e.Msg)
	}
	return l
}

// Echo returns the scenario as JSON for the results header's config: every
// header value and stdio env value replaced by redact.Mask (key
// redaction, whatever the value), URLs with their credentials masked, and
// every secret of s.Secrets masked wherever else it appears.
func (s *Scenario) Echo() json.RawMessage {
	c := *s
	if h := s.Target.HTTP; h != nil {
		hc := *h
		hc.URL = redact.URL(h.URL)
		hc.Headers = masked(h.Headers)
		c.Target.HTTP = &hc
	}
	if st := s.Target.Stdio; st != nil {
		sc := *st
		sc.Env = masked(st.Env)
		sc.Command = make([]string, len(st.Command))
		for i, a := range st.Command {
			sc.Command[i] = redact.URL(a)
		}
		c.Target.Stdio = &sc
	}
	c.Orphans.Probes = slices.Clone(s.Orphans.Probes)
	for i, p := range c.Orphans.Probes {
		if p.Metric != nil {
			m := *p.Metric
			m.URL = redact.URL(m.URL)
			c.Orphans.Probes[i].Metric = &m
		}
	}
	raw, err := json.Marshal(&c)
	if err != nil {
		return nil
	}
	return s.Secrets.JSON(raw)
}

// masked returns m with every value replaced by redact.Mask.
func masked(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k := range maps.Keys(m) {
		out[k] = redact.Mask
	}
	return out
}
