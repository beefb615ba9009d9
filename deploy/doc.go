// Package deploy holds no code: it is the Dockerfile, the Kubernetes
// manifests (kubernetes/) and the Grafana dashboard (grafana/) of a
// distributed run, and tests that check them without a cluster or a Docker
// engine (docs/distributed.md).
package deploy
