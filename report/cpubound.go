package report

// mergeExtension keeps the longest extension of merged runs' loads.
func mergeExtension(w *Windows, x Windows) {
	if x.ExtendedMs > w.ExtendedMs {
		w.Extensions, w.ExtendedMs, w.Extended = x.Extensions, x.ExtendedMs, x.Extended
	}
}
