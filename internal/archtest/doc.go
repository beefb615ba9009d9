// Package archtest holds one test, TestImportsGoDownward, that keeps the
// layout honest: every package of the module has a layer, and the
// non-test files of a package import only packages of lower layers (see
// "Architecture" in README.md and "Layout and dependency direction" in
// the design). It has no code of its own.
package archtest
