package main

import (
	"bytes"
	"encoding/xml"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFormatSVGAndHTML renders the embedded example's arena map: the SVG
// is well-formed, every buffer of the plan appears once, barriers are
// marked with -barriers (and only then), and the HTML page is
// self-contained.
func TestFormatSVGAndHTML(t *testing.T) {
	var out, errs bytes.Buffer
	if code := run([]string{"-format", "svg", "-barriers", "-strategy", "size"}, &out, &errs); code != 0 {
		t.Fatalf("exit %d: %s", code, errs.String())
	}
	dec := xml.NewDecoder(bytes.NewReader(out.Bytes()))
	bufs := map[string]int{}
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		require.NoErrorf(t, err, "SVG not well-formed: %v", err)
		if se, ok := tok.(xml.StartElement); ok {
			for _, a := range se.Attr {
				if a.Name.Local == "data-buf" {
					bufs[a.Value]++
				}
			}
		}
	}
	require.NotEmptyf(t, bufs, "no buffers drawn")
	for id, n := range bufs {
		assert.Equalf(t, 1, n, "buffer %s drawn %d times", id, n)
	}
	assert.Containsf(t, out.String(), `class="bar" data-step=`, "no barrier marks")

	out.Reset()
	if code := run([]string{"-format", "svg"}, &out, &errs); code != 0 || strings.Contains(out.String(), `class="bar" data-step=`) {
		t.Errorf("exit %d: barrier marks without -barriers: %s", code, errs.String())
	}
	out.Reset()
	if code := run([]string{"-format", "html", "-color", "size"}, &out, &errs); code != 0 {
		t.Fatalf("html exit %d: %s", code, errs.String())
	}
	page := out.String()
	require.Falsef(t, !strings.HasPrefix(page, "<!DOCTYPE html>") || strings.Contains(page, "src=") || strings.Contains(page, "<link"), "HTML page is not self-contained")
	code := run([]string{"-format", "svg", "-color", "rainbow"}, io.Discard, io.Discard)
	require.NotEqualf(t, 0, code, "-color rainbow accepted")
}
