// Package verdict scores a run's Summary one area at a time against its
// protocol era: cancellation (work left running after a cancel, or after a
// disconnect from 2026-07-28 on), progress, throttling, timeouts, the
// protocol's wire rules, and the gateway of a run with a gateway section.
// Each verdict is a status (pass, warning, violation, not exercised, not
// observable, expected legacy behaviour, throttled) and its evidence in
// words: the facts a reader can hold against the server's own log.
//
// Score reads the Summary and Evidence, the little the Aggregator of
// package report saw of the calls that the Summary does not keep; the
// gateway join's examples come on the Summary. A verdict never decides
// whether the run passes by itself: Summary.Evaluate does, with
// fail_on_violation.
package verdict
