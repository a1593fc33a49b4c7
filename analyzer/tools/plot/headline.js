/* SPDX-License-Identifier: MIT */
/* paratrace report --html: the headline at the top of the page (#headline),
 * from the profile (window.ptReport, report.js) and the page's own data
 * (#pictures, plot_data.c): the hottest function, the longest wait and
 * where it happened, how unevenly the threads ran, and what the page
 * leaves out or the trace lost. Each line is an <li> with an id
 * (hl-hot, hl-wait, hl-imbalance, hl-lost) and data- attributes with the
 * figures, for the tests. */
(function () {
	"use strict";
	var rep = window.ptReport, data = rep.data, dur = rep.dur, el = rep.el;
	var pic = JSON.parse(document.getElementById("pictures").textContent);
	var list = document.getElementById("headline-list");
	var total = data.total_thread_ns || 1;

	function pct(x) { return (100 * x / total).toFixed(1) + "%"; }
	function colourOf(f) {
		var c = (pic.functions || []).filter(function (p) {
			return p.name === f.name && p.file === f.file && p.line === f.line;
		})[0];
		return c ? c.colour : null;
	}
	/* an <li>: a bold lead, then text and elements */
	function line(id, lead, parts, attrs) {
		var li = el("li", undefined, attrs || {});
		li.id = id;
		li.appendChild(el("b", lead + ": "));
		parts.forEach(function (p) {
			li.appendChild(typeof p === "string" ? document.createTextNode(p) : p);
		});
		list.appendChild(li);
		return li;
	}
	function threadName(i) {
		var t = data.threads[i];
		return t ? t.name : "thread #" + i;
	}

	/* the hottest function: the most exclusive time */
	var hot = data.functions[0];
	if (hot) {
		var sw = el("span", "", {"class": "swatch"});
		var c = colourOf(hot);
		if (c)
			sw.style.background = c;
		line("hl-hot", "Hottest function", [sw, el("code", hot.name),
			(hot.file ? " (" + hot.where + ")" : "") + ": " + dur(hot.excl_ns) +
			" in its own code, " + pct(hot.excl_ns) + " of all thread time, " + hot.calls +
			" call" + (hot.calls === 1 ? "" : "s") + "."], {"data-name": hot.name});
	} else {
		line("hl-hot", "Hottest function", ["no traced function ran."]);
	}

	/* the longest wait: on what, by whom, when */
	var kinds = {lock: "lock", cond: "condition", join: "join", barrier: "barrier"};
	function waitText(w) {
		var what;
		if (w.kind === "join") {
			what = "joining " + (w.joined === null ? "another thread" : threadName(w.joined));
		} else {
			var l = data.locks.filter(function (x) {
				return x.pid === w.pid && x.address === w.address;
			})[0];
			what = "on " + (l ? l.kind + " " + (l.object || l.address) : kinds[w.kind] + " " +
				w.address);
		}
		return dur(w.ns) + " by " + threadName(w.thread) + ", " + what + ", from " +
			dur(w.begin_ns) + " after the start";
	}
	function showWait(w) {
		var a = el("a", "show it", {href: "#s-timeline", "class": "show-range"});
		a.addEventListener("click", function () {
			if (window.ptTimeline)
				window.ptTimeline.select(w.begin_ns, w.begin_ns + w.ns, true);
		});
		return a;
	}
	if (pic.wait) {
		var parts = [waitText(pic.wait) + " (", showWait(pic.wait), ")"];
		if (pic.sync && pic.wait.kind === "join")
			parts.push("; longest on a lock, condition or barrier: " + waitText(pic.sync) + " (",
				showWait(pic.sync), ")");
		parts.push(".");
		line("hl-wait", "Longest wait", parts, {"data-ns": pic.wait.ns,
			"data-sync-ns": pic.sync ? pic.sync.ns : 0});
	} else {
		line("hl-wait", "Longest wait", ["no thread waited on a lock, condition, barrier or " +
			"join."], {"data-ns": 0, "data-sync-ns": 0});
	}

	/* imbalance: the threads' running time, busiest against the mean */
	var ts = data.threads.filter(function (t) { return t.kind === "thread" && t.lifetime_ns > 0; });
	if (ts.length > 1) {
		var most = ts[0], least = ts[0], sum = 0;
		ts.forEach(function (t) {
			sum += t.running_ns;
			if (t.running_ns > most.running_ns)
				most = t;
			if (t.running_ns < least.running_ns)
				least = t;
		});
		var mean = sum / ts.length, ratio = mean ? most.running_ns / mean : 1;
		line("hl-imbalance", "Thread imbalance", ["the busiest thread, " + most.name + ", ran " +
			dur(most.running_ns) + "; the least busy, " + least.name + ", " +
			dur(least.running_ns) + "; the busiest ran " + ratio.toFixed(2) + " times the mean of " +
			ts.length + " threads (running: lifetime less waits)."],
			{"data-ratio": ratio.toFixed(3)});
	} else {
		line("hl-imbalance", "Thread imbalance", ["one thread: nothing to compare."],
			{"data-ratio": "1"});
	}

	/* what the page leaves out and the trace lost */
	var out = [];
	if (pic.lost)
		out.push(pic.lost + " gap" + (pic.lost === 1 ? "" : "s") + " where the runtime lost data (" +
			dur(pic.lost_ns) + " without records" + (pic.lost_limit ? "; " + pic.lost_limit +
			" because the size limit PARATRACE_MAX_SIZE was reached" : "") + ")");
	if (pic.unclosed.length)
		out.push(pic.unclosed.length + " log" + (pic.unclosed.length === 1 ? "" : "s") +
			" never closed (the process was killed or crashed): " +
			pic.unclosed.map(threadName).join(", "));
	var cut = 0;
	data.functions.forEach(function (f) { cut += f.cut_calls; });
	if (cut)
		out.push(cut + " call" + (cut === 1 ? "" : "s") + " cut by lost data (not timed)");
	if (pic.shards > pic.rows_drawn)
		out.push((pic.shards - pic.rows_drawn) + " rows not drawn on the timeline (the first " +
			pic.rows_drawn + " are)");
	if (data.functions.length > 500)
		out.push("the functions table shows 500 of " + data.functions.length +
			" functions until asked for all");
	line("hl-lost", "Left out or lost", [out.length ? out.join("; ") + "." :
		"nothing: every log was closed and no data was lost."],
		{"data-lost": pic.lost, "data-unclosed": pic.unclosed.length});
})();
