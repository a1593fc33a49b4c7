/* SPDX-License-Identifier: MIT */
/* The file I/O tables of paratrace report --html (io_html.c), from the
 * profile's JSON (its members io_files and io_threads); the section goes
 * when the trace has no I/O call. */
(window.ptReportSections = window.ptReportSections || []).push({
	id: "profile",
	build: function (d, specs) {
		var cols = [["calls", "calls", "n"], ["reads", "reads", "n"], ["writes", "writes", "n"],
			["failed", "failed", "n"], ["bytes_read", "read", "b"],
			["bytes_written", "written", "b"], ["io_ns", "time", "d", "time inside the calls"],
			["bytes_per_s", "bytes/s", "b", "bytes moved per second inside the calls"]];
		if (!d.io_files || !d.io_files.length) {
			["io-files", "io-threads"].forEach(function (id) {
				var s = document.getElementById("s-" + id);
				if (s)
					s.remove();
			});
			return;
		}
		specs["io-files"] = {rows: d.io_files,
			cols: [["file", "file", "s"], ["api", "API", "s", "posix, or mpi-io: the MPI calls on a file MPI_File_open opened"]].concat(cols)};
		specs["io-threads"] = {rows: d.io_threads,
			cols: [["pid", "pid", "n"], ["tid", "tid", "n"]].concat(cols)};
	}
});
