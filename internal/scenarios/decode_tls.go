package scenarios

// httpTransports are the values of target.http.transport.
var httpTransports = []string{HTTPAuto, HTTPStreamable, HTTPSSE}

// http2Modes are the values of target.http.http2.
var http2Modes = []string{HTTP2Auto, HTTP2Off}

// tls decodes target.http.tls. Whether the files exist and hold what they
// should is checked when the target is dialled, with the path quoted.
func (d *decoder) tls(o *object) *TLS {
	o.known(tlsFields().names()...)
	t := &TLS{InsecureSkipVerify: o.boolOr("insecure_skip_verify", false)}
	file := func(key string) string {
		s, ok := o.str(key)
		if !ok {
			return ""
		}
		v := positioned{s: s, pos: o.at(key), path: join(o.path, key)}
		if !d.expand(&v) {
			return ""
		}
		if v.s == "" {
			o.errf(key, "must not be empty")
		}
		return v.s
	}
	t.CAFile, t.CertFile, t.KeyFile = file("ca_file"), file("cert_file"), file("key_file")
	t.ServerName, _ = o.str("server_name")
	switch {
	case o.has("cert_file") && !o.has("key_file"):
		o.errf("cert_file", "needs key_file too (the client certificate's private key)")
	case o.has("key_file") && !o.has("cert_file"):
		o.errf("key_file", "needs cert_file too (the client certificate)")
	}
	if t.InsecureSkipVerify && o.has("ca_file") {
		o.errf("insecure_skip_verify", "excludes ca_file: with insecure_skip_verify no certificate is verified")
	}
	return t
}
