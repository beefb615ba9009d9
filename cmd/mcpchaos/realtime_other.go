//go:build !linux

package main

import (
	"context"
	"fmt"
	"io"
)

// realtime is Linux's alone: elsewhere it says so and changes nothing.
func realtime(_ context.Context, stderr io.Writer) (stop func(), ok bool) {
	fmt.Fprintln(stderr, "mcpchaos run: --realtime: real-time priority is for Linux only; running at normal priority")
	return func() {}, false
}
