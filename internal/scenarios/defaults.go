package scenarios

import (
	"path/filepath"
	"strings"
	"time"
)

// Defaults for keys that are absent (or null) in a scenario file.
const (
	DefaultSeed            int64 = 1
	DefaultMaxInFlight           = 10000
	DefaultGracefulStop          = Duration(30 * time.Second)
	DefaultIdleTimeout           = Duration(30 * time.Second)
	DefaultMaxTimeout            = Duration(60 * time.Second)
	DefaultConnectTimeout        = Duration(5 * time.Second)
	DefaultOrphanGrace           = Duration(2 * time.Second)
	DefaultDrainMax              = Duration(30 * time.Second)
	DefaultSampleEvery           = Duration(100 * time.Millisecond)
	DefaultProgressGrace         = Duration(100 * time.Millisecond)
	DefaultFloodHz               = 50.0
	DefaultStall                 = Duration(2 * time.Second)
	DefaultThrottleMessage       = `(?i)rate.?limit|too many requests|throttl`
	DefaultRetryMax              = 3
	DefaultProcesses             = 1
	DefaultWeight                = 1.0
	DefaultProbability           = 1.0
)

// DefaultPolicies returns the client timeout policies replayed when
// timeouts.policies is absent: a fixed 60 s timeout, a 60 s idle timeout
// reset by progress with no cap (the common SDK default), and the same
// with a 30 s cap.
func DefaultPolicies() []Policy {
	return []Policy{
		{Name: "fixed-60s", Timeout: Duration(60 * time.Second)},
		{Name: "reset-no-cap", Idle: Duration(60 * time.Second), ResetOnProgress: true},
		{Name: "reset-with-cap", Idle: Duration(60 * time.Second), ResetOnProgress: true, Max: Duration(30 * time.Second)},
	}
}

// defaultName is the file's base name without its extension.
func defaultName(file string) string {
	base := filepath.Base(file)
	if base == "." || base == string(filepath.Separator) || file == "" {
		return "scenario"
	}
	return strings.TrimSuffix(base, filepath.Ext(base))
}
