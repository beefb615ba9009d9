package scenarios

import (
	"fmt"
	"net/url"
	"strings"
)

var gatewayKeys = gatewayFields().names()

// gateway decodes gateway: {truth: URL | [URL, ...]}: the base URLs of the
// built-in targets behind a gateway, each checked as an http(s) URL with no
// path but "/".
func (d *decoder) gateway(o *object) *Gateway {
	o.known(gatewayKeys...)
	o.require(gatewayFields().required()...)
	g := &Gateway{}
	var list []positioned
	switch {
	case !o.has("truth"):
		return g
	case o.isSequence("truth"):
		items, _ := o.stringList("truth")
		if len(items) == 0 && len(o.items("truth")) == 0 {
			o.errf("truth", "want at least one URL")
		}
		list = items
	default:
		if s, ok := o.str("truth"); ok {
			list = []positioned{{s: s, pos: o.at("truth"), path: join(o.path, "truth")}}
		}
	}
	for _, p := range list {
		d.secrets.AddURL(p.s) // its credentials, even when it is refused below
		if err := checkTruthURL(p.s); err != nil {
			d.errorf(p.pos, p.path, "%v", err)
			continue
		}
		g.Truth = append(g.Truth, strings.TrimSuffix(p.s, "/"))
	}
	return g
}

// checkTruthURL accepts a built-in target's base URL: http or https, a
// host, no path (but "/"), query or fragment.
func checkTruthURL(s string) error {
	if err := checkHTTPURL(s); err != nil {
		return err
	}
	u, _ := url.Parse(s)
	if (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
		return fmt.Errorf("invalid truth URL %q: want the target's base URL, such as http://127.0.0.1:8080 (its records are read from /calls)", s)
	}
	return nil
}
