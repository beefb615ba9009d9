package redact

import (
	"net/url"
	"slices"
	"strings"
)

// secretWords are the parts of a query parameter name that make its value
// a secret: token, access_token, api_key, apikey, key, secret, password,
// passwd, pwd, sig, signature, auth, authorization, credential, session,
// jwt, code_verifier... (matched case-insensitively, anywhere in the name).
var secretWords = []string{"token", "key", "secret", "pass", "pwd", "sig", "auth", "credential", "session", "jwt", "bearer", "cookie"}

// SecretName reports whether a query parameter or header named name holds
// a secret by its name alone.
func SecretName(name string) bool {
	n := strings.ToLower(name)
	for _, w := range secretWords {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// span is [start, end) in a string; param names the query parameter whose
// value it is ("" for the user information).
type span struct {
	start, end int
	param      string
}

// secretSpans returns where the secrets of a URL stand in raw: the password
// of its user information (or the user name when there is no password),
// and the value of each query parameter with a SecretName. It splits raw
// by hand, not with url.Parse, so that a URL that does not parse (a bad
// escape, a bad port) is still masked.
func secretSpans(raw string) []span {
	var out []span
	rest := 0
	if i := strings.Index(raw, "://"); i >= 0 {
		auth := i + 3
		end := len(raw)
		if j := strings.IndexAny(raw[auth:], "/?#"); j >= 0 {
			end = auth + j
		}
		if at := strings.LastIndexByte(raw[auth:end], '@'); at >= 0 {
			info := raw[auth : auth+at]
			if colon := strings.IndexByte(info, ':'); colon >= 0 {
				out = append(out, span{auth + colon + 1, auth + at, ""})
			} else {
				out = append(out, span{auth, auth + at, ""})
			}
		}
		rest = end
	}
	q := strings.IndexByte(raw[rest:], '?')
	if q < 0 {
		return out
	}
	start := rest + q + 1
	end := len(raw)
	if h := strings.IndexByte(raw[start:], '#'); h >= 0 {
		end = start + h
	}
	for i := start; i < end; {
		j := strings.IndexAny(raw[i:end], "&;")
		pe := end
		if j >= 0 {
			pe = i + j
		}
		if eq := strings.IndexByte(raw[i:pe], '='); eq >= 0 {
			name := raw[i : i+eq]
			if un, err := url.QueryUnescape(name); err == nil {
				name = un
			}
			if SecretName(name) && i+eq+1 < pe {
				out = append(out, span{i + eq + 1, pe, name})
			}
		}
		i = pe + 1
	}
	return out
}

// URL returns raw with its secrets (see URLSecrets) replaced by Mask,
// whatever their length: "https://u:[redacted]@host/mcp?access_token=[redacted]".
// A string that is no URL comes back unchanged.
func URL(raw string) string {
	spans := secretSpans(raw)
	if len(spans) == 0 {
		return raw
	}
	var b strings.Builder
	last := 0
	for _, s := range spans {
		if s.start == s.end {
			continue
		}
		b.WriteString(raw[last:s.start])
		b.WriteString(Mask)
		last = s.end
	}
	b.WriteString(raw[last:])
	return b.String()
}

// URLSecrets returns the secrets of a URL, as written and unescaped: the
// password of its user information (the user name when there is no
// password: "https://TOKEN@host"), and the values of query parameters whose
// names look secret (SecretName: token, access_token, api_key, sig, ...).
func URLSecrets(raw string) []string {
	var out []string
	for _, s := range secretSpans(raw) {
		v := raw[s.start:s.end]
		out = append(out, v)
		if un, err := url.PathUnescape(v); err == nil && !slices.Contains(out, un) {
			out = append(out, un)
		}
		if un, err := url.QueryUnescape(v); err == nil && !slices.Contains(out, un) {
			out = append(out, un)
		}
	}
	return out
}

// URLSecret is one secret of a URL and where it stands in the URL as
// written: raw[Start:End].
type URLSecret struct {
	Start, End int
	// Param is the name of the query parameter whose value it is
	// (unescaped), or "" for the password of the user information (the
	// user name when there is no password).
	Param string
}

// URLSecretsAt returns the secrets of raw (see URLSecrets) in the order
// they stand, with where they stand, for a caller that replaces them
// with something else than Mask (mcpchaos init writes environment
// references). Empty values are left out.
func URLSecretsAt(raw string) []URLSecret {
	var out []URLSecret
	for _, s := range secretSpans(raw) {
		if s.start < s.end {
			out = append(out, URLSecret{Start: s.start, End: s.end, Param: s.param})
		}
	}
	return out
}
