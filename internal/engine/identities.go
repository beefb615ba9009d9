package engine

import (
	"context"
	"fmt"
	"maps"

	"github.com/mcpchaos/mcpchaos/client"
)

// Identity is a client the plan may speak as: HTTP headers on top of the
// target's (scenario identities:).
type Identity struct {
	Name    string
	Headers map[string]string
}

// asIdentity returns the client that speaks as the plan's identity i,
// dialing it on first use: an HTTP client of its own whose headers are
// the target's with the identity's on top. Its calls are not in the
// run's client stats.
func (p *clientPool) asIdentity(ctx context.Context, id Identity) (*client.Client, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if c := p.identities[id.Name]; c != nil {
		return c, nil
	}
	if p.cfg.HTTP == nil {
		return nil, fmt.Errorf("identity %q: identities need an HTTP target", id.Name)
	}
	cfg := p.cfg
	hc := *cfg.HTTP
	hc.Header = maps.Clone(hc.Header)
	if hc.Header == nil {
		hc.Header = map[string]string{}
	}
	maps.Copy(hc.Header, id.Headers)
	cfg.HTTP = &hc
	c, err := client.Dial(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("identity %q: connect to target %s: %w", id.Name, p.target, err)
	}
	if p.identities == nil {
		p.identities = map[string]*client.Client{}
	}
	p.identities[id.Name] = c
	return c, nil
}
