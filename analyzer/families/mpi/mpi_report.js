/* SPDX-License-Identifier: MIT */
/* The MPI section of paratrace report --html (mpi_html.c): its two tables
 * and its line of totals, from the MPI tool's JSON (#mpi). */
(window.ptReportSections = window.ptReportSections || []).push({
	id: "mpi",
	build: function (mpi, specs, fmt) {
		mpi.by_rank.forEach(function (r) {
			r.share = r.thread_ns ? r.mpi_ns / r.thread_ns : 0;
		});
		mpi.by_call.forEach(function (c) {
			c.mean_ns = Math.round(c.ns / c.calls);
		});
		specs["mpi-ranks"] = {
			rows: mpi.by_rank,
			cols: [["rank", "rank", "n"], ["host", "host", "s"], ["threads", "threads", "n"],
				["thread_ns", "thread time", "d", "the lifetimes of the rank's threads, added"],
				["mpi_ns", "in MPI", "d"], ["share", "% in MPI", "p", "in MPI over thread time"],
				["calls", "calls", "n"], ["msgs_sent", "messages sent", "n", "point to point"],
				["bytes_sent", "bytes sent", "b"], ["msgs_recvd", "messages received", "n"],
				["bytes_recvd", "bytes received", "b"],
				["coll_bytes", "collective bytes", "b", "given and got in collective calls"],
				["late_ns", "late sender", "d", "receives waiting for sends that began later"]]
		};
		specs["mpi-calls"] = {
			rows: mpi.by_call,
			cols: [["call", "call", "s"], ["calls", "calls", "n"], ["ns", "time", "d"],
				["mean_ns", "mean", "d"], ["least_rank_ns", "least rank", "d"],
				["most_rank_ns", "most rank", "d"], ["bytes", "bytes", "b"]]
		};
		var calls = 0, inMpi = 0, life = 0, sent = 0, bytesSent = 0;
		mpi.by_rank.forEach(function (r) {
			calls += r.calls;
			inMpi += r.mpi_ns;
			life += r.thread_ns;
			sent += r.msgs_sent;
			bytesSent += r.bytes_sent;
		});
		var text = mpi.ranks + " ranks on " + mpi.hosts + (mpi.hosts === 1 ? " host; " : " hosts; ") +
			calls + " calls, " + fmt.dur(inMpi) + " in MPI (" +
			(life ? (100 * inMpi / life).toFixed(1) : "0.0") + "% of the ranks' thread time); " +
			sent + " messages sent (" + fmt.bytes(bytesSent) + "), " + mpi.matched + " matched, " +
			mpi.unmatched_sends + " sends and " + mpi.unmatched_recvs + " receives unmatched.";
		if (mpi.missing)
			text += " Ranks missing from the trace: " + mpi.missing + ".";
		document.getElementById("mpi-summary").textContent = text;
	}
});
