//go:build !race

package client

// raceBuild: built without -race (race_on.go says why it matters).
const raceBuild = false
