package scenarios

// Identities: the clients a scenario speaks as (identities:), each a set
// of HTTP headers added to the target's own, so that `mcpchaos limits`
// can ask whether a limit is kept for each credential or shared.

// MaxIdentities bounds the identities of a scenario.
const MaxIdentities = 100

// Identity is one client a scenario may speak as: its name and the
// headers it sends on top of (and in place of) the target's.
type Identity struct {
	Pos     Pos
	Name    string
	Headers map[string]string
}

func identityFields() fields {
	return fields{
		{Name: "name", Type: StringType(), Required: true, Doc: "the identity's name, as the limit card shows it"},
		{Name: "headers", Type: StringMapType(), Required: true, Doc: "the HTTP headers it sends on top of target.http.headers (secret, like them)"},
	}
}

var identityKeys = identityFields().names()

// identities reads the identities: list of an HTTP target's scenario.
func (d *decoder) identities(top *object, t Target) []Identity {
	items := top.items("identities")
	if len(items) == 0 {
		return nil
	}
	if t.HTTP == nil && (t.Builtin == nil || t.Builtin.Transport == "stdio") {
		top.errf("identities", "applies only to an HTTP target (http, or builtin with transport http): a header set needs HTTP")
		return nil
	}
	if len(items) > MaxIdentities {
		top.errf("identities", "has %d identities, more than %d", len(items), MaxIdentities)
		return nil
	}
	var ids []Identity
	seen := map[string]bool{}
	for _, it := range items {
		o := d.object(it.path, it.pos, it.raw)
		if o.bad {
			continue
		}
		o.known(identityKeys...)
		id := Identity{Pos: it.pos}
		id.Name, _ = o.name("name")
		if seen[id.Name] && id.Name != "" {
			o.errf("name", "identity %q is named twice", id.Name)
		}
		seen[id.Name] = true
		o.require("headers")
		id.Headers = d.headers(o)
		ids = append(ids, id)
	}
	return ids
}
