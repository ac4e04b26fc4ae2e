#!/usr/bin/env bash
# scripts/map_screenshot.sh [OUTDIR]: renders the arena map of a model with
# many barriers (densenet121: 373) as HTML with -barriers and takes two
# headless-Chromium screenshots, to check by eye that the barriers stay
# readable (arenamap/barriers.go):
#   OUTDIR/map.png       full view: the density strip above the plot
#   OUTDIR/map_zoom.png  ten wheel steps (9.3x) at the blocks near step 45:
#                        the individual barrier ticks
# CI does not run it. Needs Go and Chromium (Debian 12:
# apt-get install chromium-headless-shell; or chromium). MODEL=FILE picks
# another model.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-/tmp/memplan-map}"
model="${MODEL:-testdata/models/densenet121.onnx}"
chrome="$(command -v chromium-headless-shell || command -v chromium || command -v google-chrome || true)"
if [[ -z "$chrome" ]]; then
	echo "map_screenshot.sh: needs Chromium (apt-get install chromium-headless-shell)" >&2
	exit 1
fi
mkdir -p "$out"
go run ./cmd/planreport -format html -barriers -o "$out/map.html" "$model"
# The zoomed copy sends the page's own wheel handler ten steps at a point of
# the window (x, y in CSS pixels of the 1400x820 window).
zoom='<script>var s = document.getElementById("arenamap"); for (var i = 0; i < 10; i++) { s.dispatchEvent(new WheelEvent("wheel", {deltaY: -1, clientX: 235, clientY: 330, cancelable: true})); }</script>'
sed "s|</body>|$zoom</body>|" \
	"$out/map.html" >"$out/map_zoom.html"
for page in map map_zoom; do
	"$chrome" --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1400,820 \
		--screenshot="$out/$page.png" "file://$(realpath "$out/$page.html")" 2>/dev/null
	echo "wrote $out/$page.png"
done
