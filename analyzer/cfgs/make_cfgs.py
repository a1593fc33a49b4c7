#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes the Paraver views paratrace ships (analyzer/cfgs/*.cfg, installed
in share/paratrace/cfgs; docs/ANALYZER.md "Paraver views" shows each).

  python3 analyzer/cfgs/make_cfgs.py [DIR]     (default: beside this file)

A view is a list of timelines (windows) and histograms (2D analyzers) over
them, in the configuration-file syntax Paraver's loader reads (a
"#ParaverCFG" header, a block of window_* lines per timeline, one of
Analyzer2D.* lines per histogram). The event types are the ones the
writer uses (analyzer/tools/paraver/pv.h, families/gpu/gpu_api.c, counters). The
test analyzer_cfgs (tests/analyzer/cfg_check.py) checks every view against
a trace that has its events, and that this script writes the files as
they are committed.
"""
import os
import sys

# Thread-level semantic functions: the event's value, or the time between
# two events of the filtered types; states as they are.
LAST = "Last Evt Val"
NEXT = "Next Evt Val"
BETWEEN = "Int. Between Evt"
STATE = "State As Is"


def timeline(name, types=(), thread=LAST, stacked=False, gradient=False, values=None,
             open_=True, ymax=None, comms=False):
    """comms: draw the trace's communications (MPI messages) over the rows."""
    return {"name": name, "types": list(types), "thread": thread, "stacked": stacked,
            "gradient": gradient, "values": values, "open": open_, "ymax": ymax,
            "comms": comms}


def histogram(name, control, data=None, statistic="Time", planes=None):
    """control, data, planes: indices (from 1) of the view's timelines."""
    return {"name": name, "control": control, "data": data or control, "statistic": statistic,
            "planes": planes}


FUNC = 60000019
# MPI calls: one type per family (point-to-point, collective, other,
# one-sided, I/O), the call's number as value; numbers differ between
# families, so one timeline shows them all.
MPI_CALLS = [50000001, 50000002, 50000003, 50000004, 50000005]
VIEWS = {
    "functions": (
        "User functions, call stack: each thread's innermost traced call, one colour per\n"
        "function; a call's callers are underneath (Stacked Val rebuilds the stack from\n"
        "the 60000019 entry and End events).",
        [timeline("User functions (call stack)", [FUNC], stacked=True)], []),
    "function_durations": (
        "Durations between a thread's function events, per function: for a call\n"
        "without traced callees its whole duration, for one with callees the time to\n"
        "its first callee. Columns: duration bins; planes: the function.",
        [timeline("User function", [FUNC], open_=False),
         timeline("Time between function events", [FUNC], thread=BETWEEN, gradient=True)],
        [histogram("Function durations (# calls per duration bin)", 2, 2, "# Bursts",
                   planes=1)]),
    "thread_states": (
        "Thread states: Running, Synchronization (waiting for a lock, a condition,\n"
        "a join, a barrier), Not created; GPU rows: kernels (Running) and copies\n"
        "(Memory transfer). The histogram: % of each thread's time per state.",
        [timeline("Thread states", thread=STATE)],
        [histogram("Time per state (%)", 1, 1, "% Time")]),
    "locks": (
        "Locks, conditions and barriers: which object each thread waits for (61000010,\n"
        "labelled 'mutex 0x601000 (pid 7000)' in the .pcf), set from the request\n"
        "until the acquisition. The histogram: wait time per object and thread.",
        [timeline("Synchronization object", [61000010]),
         timeline("Thread states", thread=STATE, open_=False)],
        [histogram("Wait time per object", 1, 1, "Time")]),
    "pthread_calls": (
        "pthread calls (61000000, Extrae's values): lock, unlock, wait, create, join...\n"
        "The histograms: time in each call, and how many, per thread.",
        [timeline("pthread call", [61000000])],
        [histogram("Time per pthread call", 1, 1, "Time"),
         histogram("pthread calls (#)", 1, 1, "# Bursts")]),
    "counters_per_function": (
        "Hardware counters per user function (PARATRACE_COUNTERS=instructions,cycles\n"
        "with PARATRACE_COUNTERS_AT=functions): each read's delta is summed into the\n"
        "innermost call it was counted in.",
        [timeline("User functions (call stack)", [FUNC], stacked=True),
         timeline("Instructions (delta at each read)", [42000050], thread=NEXT, gradient=True,
                  open_=False),
         timeline("Cycles (delta at each read)", [42000059], thread=NEXT, gradient=True,
                  open_=False)],
        [histogram("Instructions per function", 1, 2, "Sum bursts"),
         histogram("Cycles per function", 1, 3, "Sum bursts")]),
    "samples": (
        "CPU-time samples (PARATRACE_SAMPLING): the function each sample fell in\n"
        "(30000001; its callers are 30000002...). The histogram: % of each thread's\n"
        "time since a sample in each function, a sampled profile.",
        [timeline("Sampled function", [30000001])],
        [histogram("Sampled time per function (%)", 1, 1, "% Time")]),
    "gpu_cuda": (
        "CUDA: each stream's row shows its kernels (63000006) and copies (63000001,\n"
        "bytes); the histogram: time per kernel and stream.",
        [timeline("CUDA kernel", [63000006]),
         timeline("CUDA copy (bytes)", [63000001], gradient=True)],
        [histogram("Kernel time per stream", 1, 1, "Time")]),
    "gpu_opencl": (
        "OpenCL: each queue's row shows its kernels (64200000) and transfers\n"
        "(64099999, bytes); the histogram: time per kernel and queue.",
        [timeline("OpenCL kernel", [64200000]),
         timeline("OpenCL transfer (bytes)", [64099999], gradient=True)],
        [histogram("Kernel time per queue", 1, 1, "Time")]),
    "openmp": (
        "OpenMP: the parallel function (outlined region) each thread runs (60000018,\n"
        "labelled 'parallel @ file:line in function'), the parallel construct on the\n"
        "thread that opens it (60000001), the work-sharing or synchronization construct\n"
        "a thread is in (62000011: loop, single, barrier, taskwait... and where), the\n"
        "task it runs (60000023), locks and critical sections (60000006/7: acquiring,\n"
        "held) and the OpenMP states (Running, Synchronization, Scheduling and\n"
        "Fork/Join, Idle). Histograms: time per construct and thread, per parallel\n"
        "function and thread, per task function and thread; % of time per state.",
        [timeline("OpenMP parallel function", [60000018]),
         timeline("OpenMP construct (work-sharing, barrier, taskwait...)", [62000011]),
         timeline("OpenMP parallel construct", [60000001], open_=False),
         timeline("OpenMP task function", [60000023], open_=False),
         timeline("OpenMP lock, critical", [60000006, 60000007], open_=False),
         timeline("OpenMP state", thread=STATE)],
        [histogram("Time per OpenMP construct", 2, 2, "Time"),
         histogram("Time per parallel function", 1, 1, "Time"),
         histogram("Time per task function", 4, 4, "Time"),
         histogram("Time per OpenMP state (%)", 6, 6, "% Time")]),
    "mpi": (
        "MPI: the call each thread is in (50000001..50000005: point-to-point,\n"
        "collective, other, one-sided, I/O; Extrae's call numbers), with the messages\n"
        "as communication lines, and the MPI states (Waiting a message, Blocking send,\n"
        "Wait/WaitAll, Group communication...). Histograms: time in each call and\n"
        "how many calls, per thread (rows: each rank's threads); % of time per state.",
        [timeline("MPI call", MPI_CALLS, comms=True),
         timeline("MPI state", thread=STATE, comms=True)],
        [histogram("Time per MPI call", 1, 1, "Time"),
         histogram("MPI calls (#)", 1, 1, "# Bursts"),
         histogram("Time per MPI state (%)", 2, 2, "% Time")]),
    "io": (
        "File I/O (Extrae's numbering, as BSC's I/O views read it): the call each\n"
        "thread is in (40000004: read, write, fread, fwrite, pread, pwrite, open...),\n"
        "the bytes it asked for (40000011), the file (40000059, named in the .pcf) and\n"
        "the I/O state. Histograms: time in each call, bytes asked per call and file.",
        [timeline("I/O call", [40000004]),
         timeline("I/O size asked (bytes)", [40000011], gradient=True, open_=False),
         timeline("I/O file", [40000059], open_=False),
         timeline("Thread states", thread=STATE, open_=False)],
        [histogram("Time per I/O call", 1, 1, "Time"),
         histogram("I/O calls (#)", 1, 1, "# Bursts"),
         histogram("Time per file", 3, 3, "Time")]),
    "memory": (
        "Dynamic memory (PARATRACE_MEMORY=1; Extrae's numbering): each call (40000040:\n"
        "malloc, free, realloc, calloc, posix_memalign...), the bytes it asked for\n"
        "(40000041), and the live bytes of the blocks each thread allocated and has\n"
        "not freed (40000081), a counter over time. Histogram: calls per thread.",
        [timeline("Dynamic memory call", [40000040]),
         timeline("Requested size (bytes)", [40000041], gradient=True, open_=False),
         timeline("Live heap bytes allocated by the thread", [40000081], gradient=True)],
        [histogram("Dynamic memory calls (#)", 1, 1, "# Bursts")]),
    "gpu_kernel_profile": (
        "Inside GPU kernels (PARATRACE_GPU_KERNELS, kernels compiled with instrument.so):\n"
        "each profiled launch's values, set on its stream row at the kernel's end, shown\n"
        "up to that end (Next Evt Val): instructions executed (63200001), the hottest\n"
        "block's share (63200002, %) and source line (63200003), work-groups (63200004);\n"
        "CUDA: work-group imbalance (63200005, %) and mean work-group time (63200006,\n"
        "ns). Read them where the CUDA kernel timeline (63000006) shows the kernel.",
        [timeline("CUDA kernel", [63000006]),
         timeline("Kernel instructions executed (IR)", [63200001], thread=NEXT, gradient=True),
         timeline("Kernel hot-block share (%)", [63200002], thread=NEXT, gradient=True),
         timeline("Kernel hot-block source line", [63200003], thread=NEXT, open_=False),
         timeline("Kernel work-groups", [63200004], thread=NEXT, gradient=True, open_=False),
         timeline("Kernel work-group imbalance (%)", [63200005], thread=NEXT, gradient=True),
         timeline("Kernel mean work-group time (ns)", [63200006], thread=NEXT, gradient=True,
                  open_=False)], []),
    "wait_states": (
        "Who made whom wait (analyze --waits): the wait state each thread is in (69000000:\n"
        "late_sender, wait_at_barrier, lock_wait, gpu_sync_wait...), the thread that made it\n"
        "wait (69000001, labelled 'rank R thread T (pid P tid T)', or 'rank R <GPU row> (pid\n"
        "P)' for the stream of the kernel or copy a GPU sync waited for) and the function\n"
        "that thread was in meanwhile (69000002), and where the critical path of the run\n"
        "goes (69000010: 1 while a thread or GPU stream is on it). Histograms: time in each\n"
        "wait state per thread, and each waiting thread's time per thread that made it wait.",
        [timeline("Wait state", [69000000]),
         timeline("Wait caused by thread", [69000001]),
         timeline("Function the causing thread was in", [69000002], open_=False),
         timeline("On the critical path", [69000010]),
         timeline("User functions (call stack)", [FUNC], stacked=True, open_=False)],
        [histogram("Time per wait state", 1, 1, "Time"),
         histogram("Waiting time per causing thread", 2, 2, "Time")]),
    "left_out": (
        "What analyze left out (a budget, --min-duration, --include/--exclude): at the\n"
        "end of each run of calls left out, how many (61000030) and the time they took\n"
        "that no call shown has (61000031, ns), inside the call they belong to.",
        [timeline("Time in calls left out (ns)", [61000031], gradient=True),
         timeline("Calls left out", [61000030], gradient=True),
         timeline("User functions (call stack)", [FUNC], stacked=True)], []),
    "left_out_locks": (
        "Synchronization calls a budget left out (when leaving every call out was not\n"
        "enough: those that waited less than a threshold): at the end of each run of\n"
        "them, how many (61000032) and how long they waited (61000033, ns); the waits\n"
        "kept, with their objects (61000010), and the thread states.",
        [timeline("Synchronization calls left out", [61000032], gradient=True),
         timeline("Time waited in synchronization calls left out (ns)", [61000033],
                  gradient=True),
         timeline("Synchronization object", [61000010]),
         timeline("Thread states", thread=STATE, open_=False)], []),
}

LEVELS_SEL = ["cpu", "appl", "task", "thread", "node", "system", "workload"]
COMPOSE = ["compose_cpu", "compose_appl", "compose_task", "compose_thread", "compose_node",
           "compose_system", "compose_workload", "topcompose1", "topcompose2"]


def window_lines(i, w):
    functions = {"cpu": "Active Thd", "appl": "Adding", "task": "Adding", "thread": w["thread"],
                 "node": "Adding", "system": "Adding", "workload": "Adding"}
    sel = ["{%s, %s}" % (lv, functions[lv]) for lv in LEVELS_SEL]
    sel += ["{from_obj, All}", "{to_obj, All}", "{tag_msg, All}", "{size_msg, All}",
            "{bw_msg, All}", "{evt_type, %s}" % ("=" if w["types"] else "All"),
            "{evt_value, All}"]
    comp = ["{%s, %s}" % (c, "Stacked Val" if c == "compose_thread" and w["stacked"] else "As Is")
            for c in COMPOSE]
    out = [
        "#" * 80,
        "< NEW DISPLAYING WINDOW %s >" % w["name"],
        "#" * 80,
        "window_name %s" % w["name"],
        "window_type single",
        "window_id %d" % i,
        "window_position_x %d" % (40 + 30 * i),
        "window_position_y %d" % (40 + 30 * i),
        "window_width 800",
        "window_height 300",
        "window_comm_lines_enabled %s" % ("true" if w["comms"] else "false"),
        "window_flags_enabled false",
        # "false" would draw a function line, not colours
        "window_noncolor_mode true",
    ]
    if w["gradient"]:
        out.append("window_color_mode window_in_gradient_mode")
    out += [
        "window_logical_filtered true",
        "window_physical_filtered false",
        "window_comm_fromto true",
        "window_comm_tagsize true",
        "window_comm_typeval true",
        "window_units Microseconds",
        "window_maximum_y %.12f" % (w["ymax"] or 100.0),
        "window_minimum_y 0.000000000000",
        "window_compute_y_max true",
        "window_level thread",
        "window_scale_relative 1.000000000000",
        "window_end_time_relative 1.000000000000",
        "window_object appl { 1, { All } }",
        "window_begin_time_relative 0.000000000000",
        "window_open %s" % ("true" if w["open"] else "false"),
        "window_drawmode draw_maximum",
        "window_drawmode_rows draw_maximum",
        "window_pixel_size 1",
        "window_labels_to_draw 1",
        "window_selected_functions { %d, { %s } }" % (len(sel), ", ".join(sel)),
        "window_compose_functions { %d, { %s } }" % (len(comp), ", ".join(comp)),
    ]
    if w["types"]:
        out.append("window_filter_module evt_type %d %s" % (len(w["types"]),
                                                              " ".join(str(t) for t in w["types"])))
    return out + [""]


def histogram_lines(h):
    out = [
        "< NEW ANALYZER2D >",
        "Analyzer2D.Name: %s" % h["name"],
        "Analyzer2D.X: 100",
        "Analyzer2D.Y: 100",
        "Analyzer2D.Width: 700",
        "Analyzer2D.Height: 400",
        "Analyzer2D.ControlWindow: %d" % h["control"],
        "Analyzer2D.DataWindow: %d" % h["data"],
        "Analyzer2D.Accumulator: Semantic",
        "Analyzer2D.Statistic: %s" % h["statistic"],
        "Analyzer2D.CalculateAll: True",
        "Analyzer2D.HideCols: True",
        "Analyzer2D.HorizVert: Horizontal",
        "Analyzer2D.Color: True",
        "Analyzer2D.SemanticColor: False",
        "Analyzer2D.Zoom: Disabled",
        "Analyzer2D.SortCols: False",
        "Analyzer2D.SortCriteria: Average",
        "Analyzer2D.AnalysisLimits: Alltrace",
        "Analyzer2D.ComputeYScale: True",
        "Analyzer2D.ComputeGradient: True",
        "Analyzer2D.PixelSize: 1",
        "Analyzer2D.ShowOnlyTotals: False",
        "Analyzer2D.ShortHeaderLabels: True",
    ]
    if h["planes"]:
        out += ["Analyzer2D.3D_ControlWindow: %d" % h["planes"],
                "Analyzer3D.ComputeYScale: True"]
    return out + [""]


def cfg_text(description, windows, histograms):
    out = ["#ParaverCFG", "ConfigFile.Version: 3.4", "ConfigFile.NumWindows: %d" % len(windows),
           "ConfigFile.BeginDescription", description, "ConfigFile.EndDescription", ""]
    for i, w in enumerate(windows, 1):
        out += window_lines(i, w)
    for h in histograms:
        out += histogram_lines(h)
    return "\n".join(out)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    os.makedirs(out, exist_ok=True)
    for name, (description, windows, histograms) in sorted(VIEWS.items()):
        with open(os.path.join(out, name + ".cfg"), "w") as f:
            f.write(cfg_text(description, windows, histograms))
    return 0


if __name__ == "__main__":
    sys.exit(main())
