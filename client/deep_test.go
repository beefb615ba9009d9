package client

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/mcpchaos/mcpchaos/internal/testutil"
)

// TestRunDeepCompletes: more tasks at once than deep goroutines all run,
// each before its runDeep returns.
func TestRunDeepCompletes(t *testing.T) {
	t.Parallel()
	const n = 3 * maxDeep
	var ran atomic.Int32
	release := make(chan struct{})
	done := make(chan error, n)
	for range n {
		go func() {
			task := &countTask{ran: &ran, wait: release}
			runDeep(task, make(chan struct{}, 1))
			if !task.done {
				done <- errors.New("runDeep returned before its task ran")
				return
			}
			done <- nil
		}()
	}
	close(release)
	ctx, cancel := context.WithTimeout(context.Background(), testutil.WaitLong)
	defer cancel()
	for range n {
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
		case <-ctx.Done():
			t.Fatalf("%d of %d tasks ran in %v", ran.Load(), n, testutil.WaitLong)
		}
	}
}

type countTask struct {
	ran  *atomic.Int32
	wait chan struct{}
	done bool
}

func (c *countTask) runDeep() {
	<-c.wait
	c.ran.Add(1)
	c.done = true
}
