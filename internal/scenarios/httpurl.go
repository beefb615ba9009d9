package scenarios

// CheckHTTPURL checks a target URL as target.http.url is checked: an
// absolute http or https URL with a host and, if given, a port from 1 to
// 65535. The commands that take a URL on the command line use it.
func CheckHTTPURL(s string) error { return checkHTTPURL(s) }

// ValidHeaderName reports whether name is an HTTP header name (an RFC 9110
// token), as target.http.headers requires.
func ValidHeaderName(name string) bool { return validHeaderName(name) }
