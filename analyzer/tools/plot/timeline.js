/* SPDX-License-Identifier: MIT */
/* paratrace report --html: zoom and range selection on the timeline, and
 * the tables following the range (the last script of the page: it marks
 * <body data-ready="1">).
 *
 * Dragging across the rows selects a range of time; the functions, locks
 * and threads tables then show that range only, summed from the page's
 * slices (#pictures, plot_data.c: the run cut into at most 256 slices of
 * equal width; a selection counts the whole slices it touches, and the
 * line above the timeline says which). For a range: functions' calls
 * begun and exclusive time in it, and that time's share of the threads'
 * time in it; locks' acquisitions and wait; threads' time alive, running
 * and waiting by kind in it. The other columns show "–". A function the
 * runtime throttled (report --json's "estimated") has only its recorded
 * calls in the slices: the calls after throttling are counted, not placed
 * in time. For the whole run its row has the profile's figures; for a
 * range that ends after the throttling began, its recorded figures marked
 * as lower bounds (the row's at_least, report.js). "Zoom to
 * selection" stretches the selected range across the timeline (the boxes
 * are the same bins, wider; the axis is labelled anew), "Whole run" (or
 * Escape, or a double click) goes back to the run and its tables.
 *
 * The address may end in #range=FROM,TO (ns since the start; "&zoom" to
 * zoom to it too) to select a range when the page loads: what the tests
 * use. window.ptTimeline.select(from, to, zoom) does the same. */
(function () {
	"use strict";
	var rep = window.ptReport, data = rep.data, dur = rep.dur;
	var pic = JSON.parse(document.getElementById("pictures").textContent);
	var svg = document.getElementById("timeline");
	var NS = svg.namespaceURI;
	var span = pic.span_ns || 1, sliceNs = pic.slice_ns || 1, nslices = pic.slices || 1;
	var base = {functions: data.functions.slice(), locks: data.locks.slice(),
		threads: data.threads.slice()};
	var text = document.getElementById("range-text"), hint = text.textContent;
	var zin = document.getElementById("zoom-in"), zout = document.getElementById("zoom-out");

	/* ---- tables for slices [i0, i1) ---------------------------------- */

	function sum(cells, i0, i1, k) {
		var x = 0;
		cells.forEach(function (c) {
			if (c[0] >= i0 && c[0] < i1)
				x += c[k];
		});
		return x;
	}
	function overlap(a0, a1, b0, b1) {
		return Math.max(0, Math.min(a1, b1) - Math.max(a0, b0));
	}
	function copy(r, over) {
		var x = {};
		for (var k in r)
			x[k] = r[k];
		for (k in over)
			x[k] = over[k];
		return x;
	}

	var throttled = false; /* some row of the range's functions is a lower bound */

	function rangeTables(i0, i1) {
		var t0 = i0 * sliceNs, t1 = Math.min(i1 * sliceNs, span), total = 0;
		var waits = {};
		(pic.waits || []).forEach(function (w) {
			var t = waits[w.thread] = waits[w.thread] || {};
			t[w.kind] = sum(w.s, i0, i1, 1);
		});
		var threads = base.threads.map(function (t, i) {
			var alive = overlap(t.start_ns, t.start_ns + t.lifetime_ns, t0, t1);
			var w = waits[i] || {}, wl = w.lock || 0, wc = w.cond || 0, wj = w.join || 0,
				wb = w.barrier || 0;
			if (t.kind === "thread")
				total += alive;
			return copy(t, {lifetime_ns: alive, running_ns: Math.max(0, alive - wl - wc - wj - wb),
				wait_lock_ns: wl, wait_cond_ns: wc, wait_join_ns: wj, wait_barrier_ns: wb,
				events: null});
		}).filter(function (t) { return t.lifetime_ns > 0; });
		var fs = {};
		(pic.functions || []).forEach(function (f) {
			var k = f.name + "\n" + f.file + "\n" + f.line, x = fs[k] = fs[k] || [0, 0];
			x[0] += sum(f.s, i0, i1, 1);
			x[1] += sum(f.s, i0, i1, 2);
		});
		var all = i0 === 0 && i1 >= nslices;
		var functions = base.functions.map(function (f) {
			var x = fs[f.name + "\n" + f.file + "\n" + f.line] || [0, 0];
			if (f.estimated && all)
				x = [f.excl_ns, f.calls];
			var lower = f.estimated && !all && t1 > f.throttled_since_ns;
			return copy(f, {calls: x[1], excl_ns: x[0], share: total ? x[0] / total : 0,
				incl_ns: null, incl_mean_ns: null, incl_max_ns: null, excl_mean_ns: null,
				excl_max_ns: null, cut_calls: null,
				at_least: lower ? ["calls", "excl_ns", "share"] : null});
		}).filter(function (f) { return f.calls || f.excl_ns || f.at_least; });
		throttled = functions.some(function (f) { return f.at_least; });
		functions.sort(function (a, b) { return b.excl_ns - a.excl_ns; });
		var ls = {};
		(pic.locks || []).forEach(function (l) {
			ls[l.pid + "\n" + l.address] = [sum(l.s, i0, i1, 1), sum(l.s, i0, i1, 2)];
		});
		var locks = base.locks.map(function (l) {
			var x = ls[l.pid + "\n" + l.address] || [0, 0];
			return copy(l, {acquisitions: x[1], wait_ns: x[0], contended: null, failed: null,
				wait_max_ns: null, top_waiter: null});
		}).filter(function (l) { return l.acquisitions || l.wait_ns; });
		locks.sort(function (a, b) { return b.wait_ns - a.wait_ns; });
		rep.show("functions", functions);
		rep.show("locks", locks);
		rep.show("threads", threads);
	}

	function wholeTables() {
		rep.show("functions", base.functions);
		rep.show("locks", base.locks);
		rep.show("threads", base.threads);
	}

	/* ---- the picture: where things are ------------------------------- */

	var axisLine = svg.querySelector("g.axis line");
	var x0 = Number(axisLine.getAttribute("x1")), W = Number(axisLine.getAttribute("x2")) - x0;
	var axisY = Number(axisLine.getAttribute("y1"));
	var bgs = svg.querySelectorAll("g.row rect.rowbg");
	var top = bgs.length ? Number(bgs[0].getAttribute("y")) : axisY - 20;
	var boxes = Array.prototype.slice.call(svg.querySelectorAll(
		"g.row rect.f, g.row rect.wait, g.row rect.lost"));
	boxes.forEach(function (r) {
		var x = Number(r.getAttribute("x")), w = Number(r.getAttribute("width"));
		r.dataset.t0 = (x - x0) / W * span;
		r.dataset.t1 = (x + w - x0) / W * span;
	});
	/* the axis's ticks are drawn anew for each view */
	var axis = svg.querySelector("g.axis");
	Array.prototype.slice.call(axis.children).forEach(function (e, i) {
		if ((e.tagName === "line" && i > 0) || e.getAttribute("class") === "tick")
			axis.removeChild(e);
	});
	var ticks = document.createElementNS(NS, "g");
	ticks.setAttribute("class", "ticks");
	axis.appendChild(ticks);
	var selRect = document.createElementNS(NS, "rect");
	selRect.setAttribute("class", "selection");
	selRect.setAttribute("y", top - 2);
	selRect.setAttribute("height", axisY - top + 2);
	selRect.style.display = "none";
	svg.appendChild(selRect);

	var view = [0, span], sel = null;

	function toX(t) { return x0 + (t - view[0]) / (view[1] - view[0]) * W; }
	function toT(x) { return view[0] + (x - x0) / W * (view[1] - view[0]); }
	function clampX(x) { return Math.max(x0, Math.min(x0 + W, x)); }

	/* "0", "250 us", "1.5 ms": as the C side labels ticks */
	function tickLabel(t) {
		if (!t)
			return "0";
		var u = [[1e9, "s"], [1e6, "ms"], [1e3, "us"], [1, "ns"]], i = 0;
		while (i < 3 && t < u[i][0])
			i++;
		return String(Number((t / u[i][0]).toFixed(3))) + " " + u[i][1];
	}
	function tickStep(width) {
		var want = Math.max(width / 10, 1);
		for (var p = 1;; p *= 10)
			for (var m = 0; m < 3; m++)
				if ([1, 2, 5][m] * p >= want)
					return [1, 2, 5][m] * p;
	}
	function drawAxis() {
		ticks.textContent = "";
		var step = tickStep(view[1] - view[0]);
		for (var t = Math.ceil(view[0] / step) * step; t <= view[1]; t += step) {
			var x = toX(t), line = document.createElementNS(NS, "line");
			line.setAttribute("x1", x.toFixed(2));
			line.setAttribute("x2", x.toFixed(2));
			line.setAttribute("y1", axisY);
			line.setAttribute("y2", axisY + 5);
			line.setAttribute("stroke", "#333");
			var label = document.createElementNS(NS, "text");
			label.setAttribute("class", "tick");
			label.setAttribute("x", x.toFixed(2));
			label.setAttribute("y", axisY + 17);
			label.setAttribute("text-anchor", "middle");
			label.textContent = tickLabel(Math.round(t));
			ticks.appendChild(line);
			ticks.appendChild(label);
		}
	}
	function drawBoxes() {
		boxes.forEach(function (r) {
			var a = clampX(toX(Number(r.dataset.t0))), b = clampX(toX(Number(r.dataset.t1)));
			if (b - a <= 0) {
				r.style.display = "none";
				return;
			}
			r.style.display = "";
			r.setAttribute("x", a.toFixed(2));
			r.setAttribute("width", (b - a).toFixed(2));
		});
	}
	function drawSelection() {
		if (!sel) {
			selRect.style.display = "none";
			return;
		}
		var a = clampX(toX(sel[0])), b = clampX(toX(sel[1]));
		selRect.style.display = b > a ? "" : "none";
		selRect.setAttribute("x", a.toFixed(2));
		selRect.setAttribute("width", Math.max(b - a, 0).toFixed(2));
	}
	function draw() {
		drawBoxes();
		drawAxis();
		drawSelection();
		svg.dataset.view = Math.round(view[0]) + "," + Math.round(view[1]);
	}

	/* ---- selecting and zooming ------------------------------------------ */

	function select(a, b, zoom) {
		a = Math.max(0, Math.min(a, b));
		b = Math.min(span, Math.max(a, b));
		if (b <= a)
			return;
		sel = [a, b];
		var i0 = Math.floor(a / sliceNs), i1 = Math.min(nslices, Math.ceil(b / sliceNs));
		rangeTables(i0, i1);
		var s0 = i0 * sliceNs, s1 = Math.min(i1 * sliceNs, span);
		text.textContent = "Selected " + dur(Math.round(a)) + " to " + dur(Math.round(b)) +
			" (" + dur(Math.round(b - a)) + "). The tables show " + dur(s0) + " to " + dur(s1) +
			" (whole slices of " + dur(sliceNs) + "): calls begun and time spent in it; " +
			"\u2013 where a figure is the whole run's only." + (throttled ? " \u2265: at " +
			"least: " + rep.throttledNote : "");
		document.body.dataset.range = s0 + "," + s1;
		zin.disabled = false;
		zout.disabled = false;
		if (zoom)
			view = [a, b];
		draw();
	}
	function whole() {
		sel = null;
		view = [0, span];
		wholeTables();
		text.textContent = hint;
		delete document.body.dataset.range;
		zin.disabled = true;
		zout.disabled = true;
		draw();
	}
	zin.addEventListener("click", function () {
		if (sel) {
			view = sel.slice();
			draw();
		}
	});
	zout.addEventListener("click", whole);
	document.addEventListener("keydown", function (e) {
		if (e.key === "Escape")
			whole();
	});
	svg.addEventListener("dblclick", whole);

	function svgX(e) {
		var p = svg.createSVGPoint();
		p.x = e.clientX;
		p.y = e.clientY;
		return p.matrixTransform(svg.getScreenCTM().inverse());
	}
	var drag = null, before = null;
	svg.addEventListener("mousedown", function (e) {
		var p = svgX(e);
		if (e.button !== 0 || p.x < x0 || p.x > x0 + W || p.y < top - 2 || p.y > axisY + 20)
			return;
		e.preventDefault();
		before = sel;
		drag = [toT(p.x), toT(p.x)];
	});
	svg.addEventListener("mousemove", function (e) {
		if (!drag)
			return;
		drag[1] = toT(clampX(svgX(e).x));
		sel = [Math.min(drag[0], drag[1]), Math.max(drag[0], drag[1])];
		drawSelection();
	});
	window.addEventListener("mouseup", function (e) {
		if (!drag)
			return;
		drag[1] = toT(clampX(svgX(e).x));
		var a = Math.min(drag[0], drag[1]), b = Math.max(drag[0], drag[1]);
		drag = null;
		if (toX(b) - toX(a) >= 3) {
			select(a, b, false);
		} else {
			/* a click, not a drag: the selection there was stays */
			sel = before;
			drawSelection();
		}
	});

	window.ptTimeline = {select: select, whole: whole};
	draw();
	var m = /[#&]range=(\d+),(\d+)/.exec(location.hash);
	if (m)
		select(Number(m[1]), Number(m[2]), /[#&]zoom\b/.test(location.hash));
	document.body.setAttribute("data-ready", "1");
})();
