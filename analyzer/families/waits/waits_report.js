/* SPDX-License-Identifier: MIT */
/* The wait-state section of paratrace report --html (waits_html.c): its
 * three tables and its line of totals, from the section's JSON (#waits). */
(window.ptReportSections = window.ptReportSections || []).push({
	id: "waits",
	build: function (w, specs, fmt) {
		var waited = 0;
		w.wait_states.forEach(function (r) {
			waited += r.time_ns;
			r.cause_text = r.cause ? r.cause.rank + "." + (r.cause.gpu || r.cause.thread) + " " +
				r.cause.function : "-";
		});
		/* a kernel or copy made them wait: on its GPU stream */
		w.wait_causes.forEach(function (c) {
			if (c.gpu) {
				c.function += " on " + c.gpu;
				c.thread = "gpu";
			}
		});
		var path = w.critical_path;
		path.functions.forEach(function (f) {
			f.share = path.time_ns ? f.time_ns / path.time_ns : 0;
		});
		specs["wait-states"] = {
			rows: w.wait_states,
			cols: [["pattern", "pattern", "s"], ["rank", "rank", "n"], ["thread", "thread", "n"],
				["call_path", "waiting in", "s", "the call path of the waiting thread"],
				["instances", "waits", "n"], ["time_ns", "time", "d"],
				["cause_text", "caused most by", "s", "rank.thread and the function it was in"]]
		};
		specs["wait-causes"] = {
			rows: w.wait_causes,
			cols: [["function", "function", "s"], ["rank", "rank", "n"], ["thread", "thread", "n"],
				["instances", "waits", "n"], ["delay_ns", "caused", "d"]]
		};
		specs["critical-path"] = {
			rows: path.functions,
			cols: [["function", "function", "s"], ["rank", "rank", "n"], ["time_ns", "time", "d"],
				["share", "share", "p", "of the critical path"]]
		};
		document.getElementById("waits-summary").textContent =
			w.wait_states.length + " rows of waits, " + fmt.dur(waited) + " waited; critical path " +
			fmt.dur(path.time_ns) + ".";
	}
});
