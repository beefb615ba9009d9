package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcpchaos/mcpchaos/client/rpcmsg"
	"github.com/mcpchaos/mcpchaos/client/vocab"
)

// negotiate settles the era: a forced one, or server/discover first and
// initialize when the answer says the server is legacy. The decision is
// made from the body of the answer, not from the HTTP status alone.
func (c *Client) negotiate(ctx context.Context) error {
	pctx, cancel := WithBound(ctx, c.cfg.ProbeTimeout)
	defer cancel()
	if _, sse := c.tr.(*sseTransport); sse {
		return c.initializeSSE(pctx)
	}
	if c.cfg.Protocol != "" && !c.cfg.Protocol.Modern() {
		return c.orSSE(ctx, c.initialize(pctx, c.cfg.Protocol))
	}
	c.era = Era20260728
	r := c.roundTrip(pctx, vocab.MethodDiscover, "", nil, metaOptions{modern: true})
	legacy, err := c.judgeDiscover(r)
	if err != nil {
		return err
	}
	if c.cfg.Protocol.Modern() || legacy == "" {
		return nil
	}
	// A silent legacy server used up pctx: the handshake gets its own time.
	ictx, icancel := WithBound(ctx, c.cfg.ProbeTimeout)
	defer icancel()
	err = c.orSSE(ctx, c.initialize(ictx, legacy))
	if err != nil && timedOut(r.err) {
		if c.lateModern(ctx, err, legacy) {
			return nil
		}
		return fmt.Errorf("%w (server/discover got no answer either)", err)
	}
	return err
}

// lateModern asks server/discover once more, on stdio, when the first went
// unanswered in time and the legacy handshake then drew a JSON-RPC error.
// A starved modern server answers the first discover late, takes the
// session for a 2026 one (the official Go SDK does), and then refuses our
// initialize as a duplicate; asked again, it answers at once. It reports
// whether the server turned out modern; if not, the era stays legacy.
func (c *Client) lateModern(ctx context.Context, initErr error, legacy Era) bool {
	var rpc *RPCError
	if c.tr.name() != "stdio" || !errors.As(initErr, &rpc) {
		return false
	}
	pctx, cancel := WithBound(ctx, c.cfg.ProbeTimeout)
	defer cancel()
	c.era = Era20260728
	r := c.roundTrip(pctx, vocab.MethodDiscover, "", nil, metaOptions{modern: true})
	if r.result != nil {
		if again, err := c.judgeDiscover(r); err == nil && again == "" {
			return true
		}
	}
	c.era = legacy
	return false
}

// judgeDiscover reads the discover probe's answer. It returns the legacy
// era to fall back to, or "" to stay modern.
func (c *Client) judgeDiscover(r rawResponse) (Era, error) {
	switch {
	case r.result != nil:
		var d DiscoverResult
		if err := json.Unmarshal(r.result, &d); err != nil {
			return Era20251125, nil // not a DiscoverResult: a legacy server's odd answer
		}
		c.discover = &d
		if d.Meta.ServerInfo != nil {
			c.server = *d.Meta.ServerInfo
		}
		if len(d.SupportedVersions) == 0 || supports(d.SupportedVersions, Era20260728) {
			return "", nil
		}
		if e, ok := bestLegacy(d.SupportedVersions); ok {
			return e, nil
		}
		return "", fmt.Errorf("server/discover: server supports %q, none of which mcpchaos speaks", d.SupportedVersions)
	case r.rpcErr != nil:
		switch r.rpcErr.Code {
		case CodeUnsupportedVersion:
			var data versionErrorData
			_ = json.Unmarshal(r.rpcErr.Data, &data)
			if supports(data.Supported, Era20260728) {
				return "", nil
			}
			if e, ok := bestLegacy(data.Supported); ok {
				return e, nil
			}
			return Era20251125, nil
		case CodeHeaderMismatch, CodeMissingCapability:
			return "", nil // a modern server that judged our request
		case CodeMethodNotFound:
			if r.status == 404 {
				return "", nil // 2026: unknown method is 404 plus -32601
			}
		}
		return Era20251125, nil
	case c.tr.name() == "stdio" && timedOut(r.err):
		return Era20251125, nil // no answer in time: legacy servers may stay silent
	case r.status != 0 && !errors.As(r.err, new(*noAnswerError)):
		return Era20251125, nil // an HTTP answer without a modern error body
	}
	return "", fmt.Errorf("server/discover: %w", r.err)
}

// initialize runs the legacy handshake for era.
func (c *Client) initialize(ctx context.Context, era Era) error {
	c.era = era
	r := c.roundTrip(ctx, vocab.MethodInitialize, "", c.initMembers(era), metaOptions{})
	c.initStatus = r.status
	if err := r.failure(vocab.MethodInitialize); err != nil {
		return err
	}
	var res InitializeResult
	if err := json.Unmarshal(r.result, &res); err != nil {
		return fmt.Errorf("initialize: decode result: %w", err)
	}
	offered := Era(res.ProtocolVersion)
	known := false
	for _, e := range legacyEras {
		known = known || e == offered
	}
	if !known {
		return fmt.Errorf("initialize: server offered protocol version %q, which mcpchaos does not speak (it speaks %s)", res.ProtocolVersion, erasText())
	}
	c.era = offered
	c.server = res.ServerInfo
	body := rpcmsg.AppendNotification(nil, vocab.MethodInitialized, nil)
	if err := c.tr.notify(ctx, vocab.MethodInitialized, body); err != nil {
		return fmt.Errorf("notifications/initialized: %w", err)
	}
	return nil
}

// initMembers are the params members of an initialize request for era.
func (c *Client) initMembers(era Era) []byte {
	members := []byte(`"protocolVersion":`)
	members = rpcmsg.AppendString(members, string(era))
	members = append(members, `,"capabilities":`...)
	members = append(members, c.capabilities()...)
	members = append(members, `,"clientInfo":`...)
	return append(members, c.clientInfo...)
}
