package arenamap

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// HTML writes the arena map of m as one self-contained HTML page: the SVG
// inline, a JSON table of hover details for the MaxHover largest blocks,
// and a small inline script for the hover box (name, size, lifespan,
// offset, producer op) and zoom (wheel or +/- buttons zoom around the
// pointer, drag pans, double-click resets; zooming into a map with dense
// barriers reveals their ticks, barriers.go). The page fetches nothing.
func HTML(w io.Writer, m *Map, opt Options) error {
	if err := m.Validate(); err != nil {
		return err
	}
	var svg bytes.Buffer
	table, err := render(&svg, m, opt.withDefaults(), true)
	if err != nil {
		return err
	}
	if table == nil {
		table = []hoverInfo{}
	}
	// json.Marshal escapes <, > and & so the table cannot close the script.
	data, err := json.Marshal(table)
	if err != nil {
		return fmt.Errorf("arenamap: hover table: %w", err)
	}
	title := m.Title
	if title == "" {
		title = "arena map"
	}
	ew := &errWriter{w: w}
	ew.printf("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>%s</title>\n<style>%s</style>\n</head>\n<body>\n", esc(title), pageCSS)
	ew.write(`<div id="bar"><button id="zin" title="zoom in">+</button><button id="zout" title="zoom out">&#8722;</button><button id="zreset">reset</button>` +
		`<span>wheel: zoom at pointer &#183; drag: pan &#183; double-click: reset &#183; hover a block for details</span></div>` + "\n")
	ew.write(`<div id="wrap">` + "\n")
	ew.write(svg.String())
	ew.write("</div>\n<div id=\"tip\"></div>\n")
	if f := frontierSVG(m.Frontier); f != "" {
		ew.write("<p>Frontier: arena against barriers, from the concurrency optimum (left) to the memory optimum (right); the filled point is this plan.</p>\n")
		ew.write(f)
	}
	ew.printf("<script type=\"application/json\" id=\"bufs\">%s</script>\n", data)
	ew.printf("<script>\n%s</script>\n</body>\n</html>\n", pageJS)
	return ew.err
}

const pageCSS = `body{margin:8px;font:13px sans-serif;color:#222;background:#fff}
#bar{margin:0 0 6px 0}#bar span{color:#666;margin-left:10px}
#bar button{font:13px sans-serif;min-width:28px;margin-right:4px}
#wrap{display:inline-block;max-width:100%;border:1px solid #ddd;overflow:hidden;cursor:grab}
#wrap svg{display:block;max-width:100%;height:auto}
#tip{position:fixed;display:none;pointer-events:none;background:rgba(255,255,255,.95);
border:1px solid #888;padding:4px 6px;white-space:pre;font:12px monospace;box-shadow:1px 1px 4px rgba(0,0,0,.2)}
rect.b:hover{stroke:#000;stroke-width:1.2}
#wrap svg line,#wrap svg path.live{vector-effect:non-scaling-stroke}`

const pageJS = `(function () {
  "use strict";
  var svg = document.getElementById("arenamap");
  var tip = document.getElementById("tip");
  var data = JSON.parse(document.getElementById("bufs").textContent);
  var W = svg.viewBox.baseVal.width, H = svg.viewBox.baseVal.height;
  var vb = {x: 0, y: 0, w: W, h: H};
  var bars = svg.querySelector("g.barriers[data-zoom]");
  function apply() {
    vb.w = Math.min(vb.w, W); vb.h = Math.min(vb.h, H);
    vb.x = Math.max(0, Math.min(vb.x, W - vb.w));
    vb.y = Math.max(0, Math.min(vb.y, H - vb.h));
    svg.setAttribute("viewBox", vb.x + " " + vb.y + " " + vb.w + " " + vb.h);
    if (bars) { bars.classList.toggle("dense", W / vb.w < +bars.getAttribute("data-zoom")); }
  }
  function at(cx, cy) {
    var r = svg.getBoundingClientRect();
    return {x: vb.x + (cx - r.left) / r.width * vb.w, y: vb.y + (cy - r.top) / r.height * vb.h};
  }
  function zoom(k, p) {
    var nw = Math.max(W / 400, Math.min(W, vb.w * k)), f = nw / vb.w;
    vb.x = p.x - (p.x - vb.x) * f; vb.y = p.y - (p.y - vb.y) * f;
    vb.w = nw; vb.h = vb.h * f; apply();
  }
  svg.addEventListener("wheel", function (e) {
    e.preventDefault();
    zoom(e.deltaY < 0 ? 0.8 : 1.25, at(e.clientX, e.clientY));
  }, {passive: false});
  var mid = function () { return {x: vb.x + vb.w / 2, y: vb.y + vb.h / 2}; };
  document.getElementById("zin").onclick = function () { zoom(0.5, mid()); };
  document.getElementById("zout").onclick = function () { zoom(2, mid()); };
  function reset() { vb = {x: 0, y: 0, w: W, h: H}; apply(); }
  document.getElementById("zreset").onclick = reset;
  svg.addEventListener("dblclick", reset);
  var drag = null;
  svg.addEventListener("mousedown", function (e) { drag = {x: e.clientX, y: e.clientY, vx: vb.x, vy: vb.y}; });
  window.addEventListener("mouseup", function () { drag = null; });
  window.addEventListener("mousemove", function (e) {
    if (drag) {
      var r = svg.getBoundingClientRect();
      vb.x = drag.vx - (e.clientX - drag.x) / r.width * vb.w;
      vb.y = drag.vy - (e.clientY - drag.y) / r.height * vb.h;
      apply();
    }
    if (tip.style.display === "block") {
      tip.style.left = (e.clientX + 14) + "px"; tip.style.top = (e.clientY + 14) + "px";
    }
  });
  function bytes(n) {
    var u = ["B", "KiB", "MiB", "GiB", "TiB"], i = 0, f = n;
    while (f >= 1024 && i < u.length - 1) { f /= 1024; i++; }
    return (i ? f.toFixed(2) : f) + " " + u[i];
  }
  svg.addEventListener("mouseover", function (e) {
    var i = e.target.getAttribute && e.target.getAttribute("data-i");
    if (i === null || i === undefined || drag) { return; }
    var b = data[+i];
    tip.textContent = b.name + "\nsize      " + bytes(b.size) + " (" + b.size + " B)" +
      "\nlifespan  [" + b.start + ", " + b.end + ")" +
      "\noffset    [" + b.offset + ", " + (b.offset + b.size) + ")" +
      "\nproducer  " + b.producer + " (" + b.kind + ")" + "\nbuffer    #" + b.id;
    tip.style.display = "block";
    tip.style.left = (e.clientX + 14) + "px"; tip.style.top = (e.clientY + 14) + "px";
  });
  svg.addEventListener("mouseout", function (e) {
    if (e.target.getAttribute && e.target.getAttribute("data-i") !== null) { tip.style.display = "none"; }
  });
})();
`
