package archtest

import (
	"io/fs"
	"path/filepath"
	"strings"
)

// walkSource calls fn for every non-test Go file under root (skipping
// testdata, hidden and underscore directories), with its path and its
// directory relative to root, in forward slashes; test files too when
// tests is set.
func walkSource(root string, tests bool, fn func(path, dir string) error) error {
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != root && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || (!tests && strings.HasSuffix(name, "_test.go")) {
			return nil
		}
		rel, err := filepath.Rel(root, filepath.Dir(p))
		if err != nil {
			return err
		}
		return fn(p, filepath.ToSlash(rel))
	})
}
