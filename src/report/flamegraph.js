// SPDX-License-Identifier: MIT
// flamegraph.js - the interaction of perfev's SVG flame graphs, embedded
// into every SVG that pev_profile_write_flamegraph writes (src/meson.build
// turns this file into a C string). It needs nothing but the SVG DOM.
//
// Click a frame to zoom into it (its callers stay visible, dimmed), click
// "Reset Zoom" or press Escape to go back. "Search" (or Ctrl+F, or "/")
// asks for a regular expression, colours the frames whose names match and
// shows the share of the total they cover. Hovering a frame shows its
// name, weight and share at the bottom and in its tooltip. A link can
// open the graph zoomed or searched: file.svg#z=NAME zooms into the first
// frame called NAME, file.svg#s=REGEX searches (both may be joined by &).
(function () {
	"use strict";
	var svg = document.documentElement;
	var frames = [];
	var width = 0, pad = 0, charWidth = 7.2, eps = 0.02;
	var matchFill = "rgb(225,0,225)";
	var resetButton, searchButton, clearButton, matched, details;

	function num(el, name) {
		return parseFloat(el.getAttribute(name));
	}

	function byId(id) {
		return document.getElementById(id);
	}

	// The text a frame of the given width shows: its name, cut with "..", or nothing.
	function fit(f, w) {
		var n = Math.floor((w - 6) / charWidth);
		if (n < 3)
			return "";
		if (f.name.length <= n)
			return f.name;
		return f.name.substring(0, n - 2) + "..";
	}

	function place(f, x, w) {
		f.rect.setAttribute("x", x.toFixed(2));
		f.rect.setAttribute("width", w.toFixed(2));
		f.text.setAttribute("x", (x + 3).toFixed(2));
		f.text.textContent = fit(f, w);
	}

	function show(el, on) {
		if (on)
			el.classList.remove("hidden");
		else
			el.classList.add("hidden");
	}

	function frameOf(target) {
		for (var el = target; el && el !== svg; el = el.parentNode)
			if (el.frame)
				return el.frame;
		return null;
	}

	function zoom(z) {
		var scale = (width - 2 * pad) / z.w;
		for (var i = 0; i < frames.length; i++) {
			var f = frames[i];
			var holds = f.x <= z.x + eps && f.x + f.w >= z.x + z.w - eps;
			var inside = f.x >= z.x - eps && f.x + f.w <= z.x + z.w + eps;
			if (f.y > z.y && holds) {
				place(f, pad, width - 2 * pad);
				f.g.classList.add("parent");
				show(f.g, true);
			} else if (f.y <= z.y && inside) {
				place(f, pad + (f.x - z.x) * scale, f.w * scale);
				f.g.classList.remove("parent");
				show(f.g, true);
			} else {
				show(f.g, false);
			}
		}
		show(resetButton, true);
	}

	function unzoom() {
		for (var i = 0; i < frames.length; i++) {
			var f = frames[i];
			place(f, f.x, f.w);
			f.g.classList.remove("parent");
			show(f.g, true);
		}
		show(resetButton, false);
	}

	// Colours the frames whose names match and shows the share they cover,
	// counting a frame inside another matching frame once.
	function search(term) {
		var re = null, spans = [], covered = 0, end = -1;
		if (term) {
			try {
				re = new RegExp(term);
			} catch (e) {
				re = null;
			}
		}
		for (var i = 0; i < frames.length; i++) {
			var f = frames[i];
			var hit = term && (re ? re.test(f.name) : f.name.indexOf(term) >= 0);
			f.rect.setAttribute("fill", hit ? matchFill : f.fill);
			if (hit)
				spans.push([f.x, f.x + f.w]);
		}
		spans.sort(function (a, b) { return a[0] - b[0]; });
		for (var j = 0; j < spans.length; j++) {
			var s = Math.max(spans[j][0], end);
			if (spans[j][1] > s)
				covered += spans[j][1] - s;
			end = Math.max(end, spans[j][1]);
		}
		if (term) {
			matched.textContent = "Matched: " +
				(100 * covered / (width - 2 * pad)).toFixed(2) + "%";
		} else {
			matched.textContent = "";
		}
		show(clearButton, !!term);
	}

	function ask() {
		var term = window.prompt("Search for (regular expression):", "");
		if (term !== null)
			search(term);
	}

	// Zoom and search named in the link's fragment.
	function applyHash() {
		var parts = (window.location.hash || "").replace(/^#/, "").split("&");
		for (var i = 0; i < parts.length; i++) {
			var eq = parts[i].indexOf("=");
			if (eq < 0)
				continue;
			var key = parts[i].substring(0, eq);
			var value = decodeURIComponent(parts[i].substring(eq + 1));
			if (key === "s")
				search(value);
			if (key === "z")
				for (var j = 0; j < frames.length; j++)
					if (frames[j].name === value) {
						zoom(frames[j]);
						break;
					}
		}
	}

	function init() {
		width = num(svg, "width");
		pad = parseFloat(svg.getAttribute("data-pad"));
		resetButton = byId("reset");
		searchButton = byId("search");
		clearButton = byId("clear");
		matched = byId("matched");
		details = byId("details");
		var gs = byId("frames").getElementsByTagName("g");
		for (var i = 0; i < gs.length; i++) {
			var g = gs[i];
			var rect = g.getElementsByTagName("rect")[0];
			var title = g.getElementsByTagName("title")[0].textContent;
			var f = {
				g: g,
				rect: rect,
				text: g.getElementsByTagName("text")[0],
				x: num(rect, "x"),
				w: num(rect, "width"),
				y: num(rect, "y"),
				fill: rect.getAttribute("fill"),
				name: title.substring(0, title.lastIndexOf(" (")),
				title: title
			};
			g.frame = f;
			frames.push(f);
		}
		svg.addEventListener("click", function (ev) {
			var f = frameOf(ev.target);
			if (f)
				zoom(f);
			else if (ev.target === resetButton)
				unzoom();
			else if (ev.target === searchButton)
				ask();
			else if (ev.target === clearButton)
				search(null);
		});
		svg.addEventListener("mouseover", function (ev) {
			var f = frameOf(ev.target);
			if (f)
				details.textContent = f.title;
		});
		svg.addEventListener("mouseout", function (ev) {
			if (frameOf(ev.target))
				details.textContent = " ";
		});
		applyHash();
		window.addEventListener("hashchange", applyHash);
		window.addEventListener("keydown", function (ev) {
			if ((ev.ctrlKey && ev.key === "f") || ev.key === "/") {
				ev.preventDefault();
				ask();
			} else if (ev.key === "Escape") {
				search(null);
				unzoom();
			}
		});
	}

	if (document.readyState === "loading")
		window.addEventListener("load", init);
	else
		init();
})();
