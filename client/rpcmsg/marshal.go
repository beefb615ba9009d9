package rpcmsg

import (
	"encoding/json"
	"fmt"
)

// Request marshals a request with a raw id and params of any Go value
// (nil for none).
func Request(id json.RawMessage, method string, params any) ([]byte, error) {
	p, err := marshalValue("params of "+method, params)
	if err != nil {
		return nil, err
	}
	return AppendRequest(nil, id, method, p), nil
}

// Notification marshals a notification with params of any Go value (nil
// for none).
func Notification(method string, params any) ([]byte, error) {
	p, err := marshalValue("params of "+method, params)
	if err != nil {
		return nil, err
	}
	return AppendNotification(nil, method, p), nil
}

// Result marshals a response whose result is any Go value ({} for nil).
func Result(id json.RawMessage, result any) ([]byte, error) {
	r, err := marshalValue("result", result)
	if err != nil {
		return nil, err
	}
	return AppendResult(nil, id, r), nil
}

// ErrorResponse marshals an error response; data is any Go value, nil
// for none.
func ErrorResponse(id json.RawMessage, code int64, message string, data any) ([]byte, error) {
	d, err := marshalValue("error data", data)
	if err != nil {
		return nil, err
	}
	return AppendError(nil, id, code, message, d), nil
}

// marshalValue marshals v; nil stays nil, and a json.RawMessage is taken
// as it is.
func marshalValue(what string, v any) ([]byte, error) {
	switch v := v.(type) {
	case nil:
		return nil, nil
	case json.RawMessage:
		return v, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("rpcmsg: marshal %s: %w", what, err)
	}
	return b, nil
}
