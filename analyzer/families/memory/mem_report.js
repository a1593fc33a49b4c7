/* SPDX-License-Identifier: MIT */
/* The dynamic memory tables of paratrace report --html (mem_html.c), from
 * the profile's JSON (memory_processes, memory_threads); the section goes
 * when the trace has no memory call. */
(window.ptReportSections = window.ptReportSections || []).push({
	id: "profile",
	build: function (d, specs) {
		var ids = ["mem-processes", "mem-sites", "mem-threads"];
		if (!d.memory_processes || !d.memory_processes.length) {
			ids.forEach(function (id) {
				var s = document.getElementById("s-" + id);
				if (s)
					s.remove();
			});
			return;
		}
		var sites = [];
		d.memory_processes.forEach(function (p) {
			p.at_peak.forEach(function (s) {
				sites.push({pid: p.pid, when: "peak", caller: s.caller, bytes: s.bytes, blocks: s.blocks});
			});
			p.at_end.forEach(function (s) {
				sites.push({pid: p.pid, when: "end", caller: s.caller, bytes: s.bytes, blocks: s.blocks});
			});
		});
		specs["mem-processes"] = {rows: d.memory_processes,
			cols: [["pid", "pid", "n"], ["allocations", "allocations", "n"], ["frees", "frees", "n"],
				["bytes_allocated", "allocated", "b"], ["peak_bytes", "peak", "b"],
				["peak_ns", "peak at", "d"], ["end_bytes", "live at the end", "b"],
				["end_blocks", "blocks at the end", "n"]]};
		specs["mem-sites"] = {rows: sites,
			cols: [["pid", "pid", "n"], ["when", "when", "s"], ["caller", "caller", "s"],
				["bytes", "bytes", "b"], ["blocks", "blocks", "n"]]};
		specs["mem-threads"] = {rows: d.memory_threads,
			cols: [["pid", "pid", "n"], ["tid", "tid", "n"], ["allocations", "allocations", "n"],
				["frees", "frees", "n"], ["bytes_allocated", "allocated", "b"],
				["peak_bytes", "peak", "b"]]};
	}
});
