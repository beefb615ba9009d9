package html

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"testing"

	xhtml "golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// The page's structure, read back with a real HTML5 parser: every section
// there, nothing that fetches or runs anything, every plot sized.

// page is a rendered report, parsed.
type parsedPage struct {
	raw  string
	root *xhtml.Node
}

func renderPage(t *testing.T, in Input) parsedPage {
	t.Helper()
	var b bytes.Buffer
	if err := Write(&b, in); err != nil {
		t.Fatalf("Write: %v", err)
	}
	return renderPageFrom(t, b.Bytes())
}

func parseHTML(page []byte) (*xhtml.Node, error) { return xhtml.Parse(bytes.NewReader(page)) }

// all returns the elements for which match is true, in document order.
func (p parsedPage) all(match func(n *xhtml.Node) bool) []*xhtml.Node {
	var out []*xhtml.Node
	var walk func(n *xhtml.Node)
	walk = func(n *xhtml.Node) {
		if n.Type == xhtml.ElementNode && match(n) {
			out = append(out, n)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(p.root)
	return out
}

// byTag returns the elements of one tag (an SVG element's tag is its
// local name).
func (p parsedPage) byTag(tag string) []*xhtml.Node {
	return p.all(func(n *xhtml.Node) bool { return n.Data == tag })
}

// byID returns the element with the id, or nil.
func (p parsedPage) byID(id string) *xhtml.Node {
	if ns := p.all(func(n *xhtml.Node) bool { return attr(n, "id") == id }); len(ns) > 0 {
		return ns[0]
	}
	return nil
}

func attr(n *xhtml.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

// text is the text content of n.
func text(n *xhtml.Node) string {
	var b strings.Builder
	var walk func(n *xhtml.Node)
	walk = func(n *xhtml.Node) {
		if n.Type == xhtml.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}

// rowsIn counts the body rows of the first table under n.
func rowsIn(n *xhtml.Node) int {
	rows := 0
	var walk func(n *xhtml.Node)
	walk = func(n *xhtml.Node) {
		if n.Type == xhtml.ElementNode && n.DataAtom == atom.Tbody {
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				if c.Type == xhtml.ElementNode && c.DataAtom == atom.Tr {
					rows++
				}
			}
			return
		}
		for c := n.FirstChild; c != nil && rows == 0; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return rows
}

// externalRef matches what would make a browser fetch something: a URL
// with a scheme or a protocol-relative one, in url() or @import.
var externalRef = regexp.MustCompile(`(?i)url\s*\(|@import|@font-face`)

// checkSelfContained fails the test for anything on the page that runs
// or fetches: a script, an embedded frame or object, an image or link
// element, an event handler, a src or href that is not a fragment, a CSS
// url() or @import or @font-face.
func checkSelfContained(t *testing.T, p parsedPage) {
	t.Helper()
	for _, tag := range []string{"script", "iframe", "object", "embed", "img", "link", "image", "use", "audio", "video", "source", "base", "form"} {
		if n := p.byTag(tag); len(n) > 0 {
			t.Errorf("the page has %d <%s> elements", len(n), tag)
		}
	}
	for _, n := range p.all(func(*xhtml.Node) bool { return true }) {
		for _, a := range n.Attr {
			key := strings.ToLower(a.Key)
			switch {
			case strings.HasPrefix(key, "on"):
				t.Errorf("<%s> has an event handler %s=%q", n.Data, a.Key, a.Val)
			case key == "src" || key == "href" || key == "xlink:href" || key == "action" || key == "srcset" || key == "poster":
				if !strings.HasPrefix(a.Val, "#") {
					t.Errorf("<%s %s=%q>: only fragment links are allowed", n.Data, a.Key, a.Val)
				}
			case key == "style" && externalRef.MatchString(a.Val):
				t.Errorf("<%s style=%q> refers to an external resource", n.Data, a.Val)
			}
		}
	}
	for _, st := range p.byTag("style") {
		if m := externalRef.FindString(text(st)); m != "" {
			t.Errorf("a <style> element holds %q", m)
		}
	}
	if strings.Contains(p.raw, "//fonts.") || regexp.MustCompile(`(?i)(src|href)\s*=\s*["']?(https?:)?//`).MatchString(p.raw) {
		t.Error("the page names an external URL in a src or href")
	}
}

// figureNotes returns the notes that stand in for plots with no data.
func (p parsedPage) figureNotes() []*xhtml.Node {
	return p.byClass("nodata figure-note")
}

// byClass returns the elements whose class attribute is exactly class.
func (p parsedPage) byClass(class string) []*xhtml.Node {
	return p.all(func(n *xhtml.Node) bool { return attr(n, "class") == class })
}

// svgLength parses an SVG width or height ("403.2pt", "560") in its unit.
func svgLength(s string) float64 {
	v, err := strconv.ParseFloat(strings.TrimRight(s, "ptxcmin%"), 64)
	if err != nil {
		return 0
	}
	return v
}

// checkPlots fails the test for an <svg> without a positive width and
// height, and for text in a plot whose font list does not end in a generic
// family. It returns the plots' labels.
func checkPlots(t *testing.T, p parsedPage) []string {
	t.Helper()
	var labels []string
	for _, svg := range p.byTag("svg") {
		label := attr(svg, "aria-label")
		if w, h := svgLength(attr(svg, "width")), svgLength(attr(svg, "height")); w <= 0 || h <= 0 {
			t.Errorf("plot %q has width %q height %q", label, attr(svg, "width"), attr(svg, "height"))
		}
		if attr(svg, "viewBox") == "" {
			t.Errorf("plot %q has no viewBox: it would not scale", label)
		}
		labels = append(labels, label)
	}
	for _, txt := range p.byTag("text") {
		st := attr(txt, "style")
		if i := strings.Index(st, "font-family:"); i >= 0 {
			fam, _, _ := strings.Cut(st[i+len("font-family:"):], ";")
			if !strings.HasSuffix(fam, "sans-serif") {
				t.Errorf("plot text %q uses font-family %q, which has no generic fallback", text(txt), fam)
			}
		}
	}
	return labels
}
