// Package gateways holds only tests: mcpchaos runs through deliberately
// broken gateways, real HTTP reverse proxies written here, in front of
// built-in targets whose truth records (GET /calls) say what really
// happened upstream. Each misbehaviour must be reported under its
// gateway.* key with the count the gateway itself kept, and nothing else;
// a transparent proxy must be reported as transparent.
package gateways
