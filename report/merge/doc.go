// Package merge reads one or more results files into one report.Aggregator,
// for `mcpchaos report`: every file's records (times are absolute, so the
// seconds of several files line up on the wall clock), their run inputs
// combined, the first file's checks and rules, and notes on what differs or
// is missing. Shards of one run are held to their split (shards.go), and
// the leaked call-seconds of a server the shards shared are measured from
// every shard's calls and samples together (shared.go). Memory does not
// grow with the number of records.
package merge
