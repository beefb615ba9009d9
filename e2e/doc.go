// Package e2e holds end-to-end tests: scenarios run against the built-in target and official-SDK servers, judged against their ground truth.
package e2e
