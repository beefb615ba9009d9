// Package archtest holds the tests that keep the layout honest:
// TestImportsGoDownward (every package of the module has a layer, and the
// non-test files of a package import only packages of lower layers) and
// TestLayoutDoc (docs/layout.md gives every package a section headed with
// that layer), and TestFunctionLength (no function of the module's
// non-test, non-generated files is over 80 lines). See also "Architecture"
// in README.md. It has no code of its own.
package archtest
