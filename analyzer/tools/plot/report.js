/* SPDX-License-Identifier: MIT */
/* paratrace report --html: the profile tables, built from the JSON that
 * `paratrace report --json` prints (embedded in the page as #profile).
 * Hand-written, no library, nothing fetched. Clicking a column header sorts
 * by it (numbers largest first, text A to Z; again: the other way). The
 * page's address may end in #click=TABLE.KEY,TABLE.KEY,... to click those
 * headers once the tables are built (what the tests use). A family's
 * section of the page (its pf_html, tools/report/report.h) comes as a
 * script of its own, run before this one: it pushes {id, build} onto
 * window.ptReportSections, and build(data, specs, fmt) gets the JSON of
 * the element #id (when the page has one), adds its tables to specs and
 * fills what else it shows (fmt: the formatters below). The scripts after
 * this one (headline.js, timeline.js) reach the tables through
 * window.ptReport; the last one marks <body data-ready="1"> when
 * everything is built. A value null shows as "–" (not known for a range
 * of time, timeline.js) and sorts below every number. A row's at_least
 * (a list of keys) shows those figures as lower bounds (a ">=" sign), with a
 * tooltip saying why. */
(function () {
	"use strict";
	var data = JSON.parse(document.getElementById("profile").textContent);
	var LIMIT = 500; /* rows shown before "show all" */
	var THROTTLED = "the runtime throttled this function (hot and short): its calls after " +
		"that are counted, not placed in time, so a range holds only the calls recorded before";

	/* x in the largest of units ([size, name], largest first) it reaches,
	 * 3 significant digits; else as it is, in unit */
	function scaled(x, units, unit) {
		for (var i = 0; i < units.length; i++)
			if (x >= units[i][0]) {
				var v = x / units[i][0];
				return v.toFixed(v >= 100 ? 0 : v >= 10 ? 1 : 2) + " " + units[i][1];
			}
		return x + " " + unit;
	}
	function dur(ns) { return scaled(ns, [[1e9, "s"], [1e6, "ms"], [1e3, "us"]], "ns"); }
	function bytes(b) { return scaled(b, [[1e9, "GB"], [1e6, "MB"], [1e3, "kB"]], "B"); }
	var formats = {
		s: function (v) { return String(v); },
		n: function (v) { return String(v); },
		d: dur,
		b: bytes,
		p: function (v) { return (100 * v).toFixed(1) + "%"; },
		dur: dur,
		bytes: bytes
	};

	/* [key, header, format, tooltip] */
	var specs = {
		functions: {
			rows: data.functions,
			cols: [["name", "function", "s"], ["where", "file:line", "s"], ["calls", "calls", "n"],
				["incl_ns", "inclusive", "d", "time in the function and its callees"],
				["incl_mean_ns", "mean", "d"], ["incl_max_ns", "max", "d"],
				["excl_ns", "exclusive", "d", "time in the function itself"],
				["excl_mean_ns", "mean", "d"], ["excl_max_ns", "max", "d"],
				["share", "% time", "p", "exclusive time over all threads' lifetime"],
				["cut_calls", "cut", "n", "calls cut by data the runtime lost: not timed"]]
		},
		locks: {
			rows: data.locks,
			cols: [["kind", "kind", "s"], ["object", "object", "s"], ["address", "address", "s"],
				["pid", "pid", "n"],
				["acquisitions", "acquired", "n"],
				["contended", "contended", "n", "requests that had to wait"],
				["failed", "failed", "n"], ["wait_ns", "wait", "d"], ["wait_max_ns", "max wait", "d"],
				["top_waiter", "waited most in", "s"]]
		},
		threads: {
			rows: data.threads,
			cols: [["name", "thread", "s"], ["kind", "kind", "s"], ["start_ns", "start", "d"],
				["lifetime_ns", "lifetime", "d"], ["running_ns", "running", "d"],
				["wait_lock_ns", "locks", "d"], ["wait_cond_ns", "conditions", "d"],
				["wait_join_ns", "joins", "d"], ["wait_barrier_ns", "barriers", "d"],
				["events", "events", "n"]]
		}
	};
	data.functions.forEach(function (f) {
		f.where = f.file ? f.file + (f.line ? ":" + f.line : "") : "";
	});
	(window.ptReportSections || []).forEach(function (sec) {
		var d = document.getElementById(sec.id);
		if (d)
			sec.build(JSON.parse(d.textContent), specs, formats);
	});

	function cell(c, v) {
		return v === null || v === undefined ? "\u2013" : formats[c[2]](v);
	}

	function el(tag, text, attrs) {
		var e = document.createElement(tag);
		if (text !== undefined)
			e.textContent = text;
		for (var k in attrs || {})
			e.setAttribute(k, attrs[k]);
		return e;
	}

	function fillBody(table, spec, all) {
		var body = table.tBodies[0];
		body.textContent = "";
		var n = all ? spec.rows.length : Math.min(spec.rows.length, LIMIT);
		for (var i = 0; i < n; i++) {
			var tr = el("tr"), r = spec.rows[i];
			spec.cols.forEach(function (c) {
				var ge = r.at_least && r.at_least.indexOf(c[0]) >= 0;
				var td = el("td", (ge ? "\u2265 " : "") + cell(c, r[c[0]]),
					{"class": c[2] === "s" ? "t" : "v"});
				if (ge)
					td.title = "at least: " + THROTTLED;
				tr.appendChild(td);
			});
			body.appendChild(tr);
		}
		if (n < spec.rows.length) {
			var more = el("button", "show all " + spec.rows.length + " rows", {type: "button"});
			more.addEventListener("click", function () {
				table.dataset.all = "1";
				fillBody(table, spec, true);
			});
			var td = el("td", undefined, {colspan: spec.cols.length});
			td.appendChild(more);
			var tr = el("tr", undefined, {"class": "more"});
			tr.appendChild(td);
			body.appendChild(tr);
		}
	}

	function sortBy(table, spec, col) {
		var key = col[0], text = col[2] === "s";
		var dir = table.dataset.sortKey === key ? -Number(table.dataset.sortDir) : (text ? 1 : -1);
		order(table, spec, col, dir);
	}

	function order(table, spec, col, dir) {
		var key = col[0], text = col[2] === "s";
		function num(v) { return v === null || v === undefined ? -Infinity : v; }
		spec.rows.forEach(function (r, i) { r._i = i; });
		spec.rows.sort(function (a, b) {
			var x = a[key], y = b[key], c;
			if (text)
				c = String(x).localeCompare(String(y));
			else
				c = num(x) < num(y) ? -1 : num(x) > num(y) ? 1 : 0;
			return c * dir || a._i - b._i;
		});
		table.dataset.sortKey = key;
		table.dataset.sortDir = String(dir);
		Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th) {
			if (th.dataset.key === key)
				th.setAttribute("aria-sort", dir > 0 ? "ascending" : "descending");
			else
				th.removeAttribute("aria-sort");
		});
		fillBody(table, spec, table.dataset.all === "1");
	}

	function build(id) {
		var spec = specs[id], table = document.getElementById(id);
		var head = el("tr");
		spec.cols.forEach(function (c) {
			var th = el("th", c[1], {"data-key": c[0], scope: "col", tabindex: "0"});
			if (c[3])
				th.title = c[3];
			th.addEventListener("click", function () { sortBy(table, spec, c); });
			th.addEventListener("keydown", function (e) {
				if (e.key === "Enter" || e.key === " ") {
					e.preventDefault();
					sortBy(table, spec, c);
				}
			});
			head.appendChild(th);
		});
		table.appendChild(el("thead")).appendChild(head);
		table.appendChild(el("tbody"));
		fillBody(table, spec, false);
		var count = document.getElementById(id + "-count");
		if (count)
			count.textContent = "(" + spec.rows.length + ")";
	}

	function summary() {
		var life = 0, run = 0, w = {lock: 0, cond: 0, join: 0, barrier: 0};
		data.threads.forEach(function (t) {
			if (t.kind !== "thread")
				return;
			life += t.lifetime_ns;
			run += t.running_ns;
			for (var k in w)
				w[k] += t["wait_" + k + "_ns"];
		});
		var tot = data.total_thread_ns || 1;
		function share(x) { return (100 * x / tot).toFixed(1) + "%"; }
		document.getElementById("summary").textContent =
			dur(data.total_thread_ns) + " of thread time: running " + dur(run) + " (" +
			share(run) + "), waiting for locks " + share(w.lock) + ", conditions " +
			share(w.cond) + ", joins " + share(w.join) + ", barriers " + share(w.barrier) + ".";
	}

	/* Table id shows rows instead (in that order, or in the order of the
	 * column it was sorted by). */
	function show(id, rows) {
		var spec = specs[id], table = document.getElementById(id);
		spec.rows = rows;
		var key = table.dataset.sortKey;
		var col = spec.cols.filter(function (c) { return c[0] === key; })[0];
		if (col)
			order(table, spec, col, Number(table.dataset.sortDir));
		else
			fillBody(table, spec, table.dataset.all === "1");
		var count = document.getElementById(id + "-count");
		if (count)
			count.textContent = "(" + rows.length + ")";
	}

	summary();
	Object.keys(specs).forEach(build);
	var m = /[#&]click=([^&]*)/.exec(location.hash);
	if (m)
		decodeURIComponent(m[1]).split(",").forEach(function (c) {
			var p = c.split(".");
			var th = document.querySelector("#" + p[0] + " th[data-key='" + p[1] + "']");
			if (th)
				th.click();
		});
	window.ptReport = {data: data, specs: specs, formats: formats, dur: dur, show: show, el: el,
		throttledNote: THROTTLED};
})();
