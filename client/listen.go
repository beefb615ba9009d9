package client

import (
	"context"
	"errors"

	"github.com/mcpchaos/mcpchaos/client/rpcmsg"
	"github.com/mcpchaos/mcpchaos/client/vocab"
)

// subscriptions/listen for task status (2026; the tasks extension's
// notifications/tasks). A listen request opens a stream that the server
// keeps open: notifications/subscriptions/acknowledged first (naming the
// task ids it agreed to), then a notifications/tasks for each status
// change, each message carrying the listen request's id in _meta. The
// server ends it with a result (resultType complete), or with
// notifications/cancelled naming the listen request: the one case where
// a 2026 server may send notifications/cancelled, so on this stream it is
// delivered as EvListen, not as a ViolServerCancel. The client ends it the
// way it cancels any request (Call.Cancel: close the stream).
//
// Over Streamable HTTP the stream is the request's own SSE response. On
// stdio every message shares the one pipe: the listen request's answer is
// routed by its id, its notifications by the subscription id in their
// _meta, and a notifications/cancelled by the request it names
// (routeNotification, stdioread.go).

// ErrListenTransport: a listen stream was asked for on a transport or era
// that has none here.
var ErrListenTransport = errors.New("subscriptions/listen: only over 2026 Streamable HTTP or stdio")

// ListenTasks opens a subscriptions/listen stream asking for
// notifications/tasks of taskIDs, with the tasks extension declared. Its
// messages reach obs as EvListen events; its end as the result, an
// EvRPCError (a server that does not serve it: -32601), or EvEnd.
//
// The caller runs the call's Wait (on HTTP it reads the stream) and ends
// the stream with Cancel.
func (c *Client) ListenTasks(ctx context.Context, taskIDs []string, obs Observer) (*Call, error) {
	if !c.listenTransport() {
		return nil, ErrListenTransport
	}
	call := c.newCall(vocab.MethodSubscriptionsListen, "", obs)
	call.raw, call.listen = true, true
	members := []byte(`"notifications":{"taskIds":[`)
	for i, id := range taskIDs {
		if i > 0 {
			members = append(members, ',')
		}
		members = rpcmsg.AppendString(members, id)
	}
	members = append(members, "]}"...)
	call.body = c.appendRequest(nil, call.id, vocab.MethodSubscriptionsListen, members, metaOptions{modern: true, tasks: true})
	if err := c.tr.start(ctx, call); err != nil {
		return nil, err
	}
	return call, nil
}

// RefuseListen notes that the server does not serve task status streams
// (its answer to one was an error, or left the task out): ListenRefused
// then says so, and the engine stops asking on this connection.
func (c *Client) RefuseListen() { c.listenRefused.Store(true) }

// ListenRefused reports whether RefuseListen was called, or the transport
// has no listen streams here.
func (c *Client) ListenRefused() bool {
	return !c.listenTransport() || c.listenRefused.Load()
}

// listenTransport reports whether listen streams are served here: the
// 2026 era over Streamable HTTP or stdio.
func (c *Client) listenTransport() bool {
	switch c.tr.(type) {
	case *httpTransport, *stdioTransport:
		return c.era.Modern()
	}
	return false
}
