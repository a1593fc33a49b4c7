#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks a Paraver view (.cfg) the way Paraver's loader reads it (the
configuration loader of paraver-kernel, api/cfg.cpp): a "#ParaverCFG"
header with a version and a window count that matches the windows; every
line a tag the loader knows (it silently skips the others, so a misspelt
tag would be lost); the functions named by the timelines among the ones it
can create (semantic, compose and filter functions), the histograms'
statistics among its statistics, their windows among the file's; and,
given a trace's .pcf, every event type the timelines filter on defined
there.

Usage: cfg_check.py VIEW.cfg [TRACE.pcf]
Exit status 0 when the view passes; 1 with one line per problem.
"""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "analyzer"))
from prv_check import Problems, parse_pcf  # noqa: E402

WINDOW_TAGS = {
    "window_name", "window_type", "window_factors", "window_position_x", "window_position_y",
    "window_width", "window_height", "window_comm_lines_enabled", "window_flags_enabled",
    "window_noncolor_mode", "window_units", "window_color_mode", "window_operation",
    "window_maximum_y", "window_minimum_y", "window_compute_y_max", "window_level",
    "window_scale_relative", "window_end_time_relative", "window_object", "window_identifiers",
    "window_zoom_objects", "window_begin_time", "window_stop_time", "window_end_time",
    "window_begin_time_relative", "window_number_of_row", "window_selected_functions",
    "window_semantic_module", "window_compose_functions", "window_filter_module",
    "window_logical_filtered", "window_physical_filtered", "window_comm_fromto",
    "window_comm_tagsize", "window_comm_typeval", "window_open", "window_drawmode",
    "window_drawmode_rows", "window_pixel_size", "window_labels_to_draw",
    "window_punctual_color_window", "window_synchronize",
    "window_id",  # written by Paraver, not read: harmless
}
HISTOGRAM_TAGS = {"Analyzer2D." + t + ":" for t in (
    "Name", "X", "Y", "Width", "Height", "ControlWindow", "DataWindow", "Statistic",
    "CalculateAll", "HideCols", "HorizVert", "Color", "SemanticColor", "Zoom", "Accumulator",
    "AccumulateByControlWindow", "SortCols", "SortCriteria", "Parameters", "AnalysisLimits",
    "RelativeTime", "ComputeYScale", "Minimum", "Maximum", "Delta", "ComputeGradient",
    "MinimumGradient", "MaximumGradient", "PixelSize", "CodeColor", "ShowOnlyTotals",
    "ShortHeaderLabels", "Synchronize", "3D_ControlWindow", "3D_Minimum", "3D_Maximum",
    "3D_Delta", "3D_FixedValue")} | {"Analyzer3D.ComputeYScale:"}
HEADER_TAGS = {"ConfigFile.Version:", "ConfigFile.NumWindows:", "ConfigFile.BeginDescription",
               "ConfigFile.EndDescription", "ConfigFile.SyncGroups"}

LEVELS = {"workload", "appl", "task", "thread", "system", "node", "cpu"}
COMPOSE_LEVELS = {"compose_workload", "compose_appl", "compose_task", "compose_thread",
                  "compose_system", "compose_node", "compose_cpu", "topcompose1", "topcompose2"}
FILTER_PARTS = {"from_obj", "to_obj", "tag_msg", "size_msg", "bw_msg", "evt_type", "evt_value"}
SEMANTIC = {
    # CPU, not-thread, state, event, comm and object functions
    "Active Thd", "Active Thd Sign", "Active Thd Val", "Active Thd Val Sign", "Adding",
    "Adding Sign", "Average", "Maximum", "Minimum", "Activity", "In Activity", "Mode",
    "Thread i", "Add Tasks", "State As Is", "Useful", "State Sign", "Given State", "In State",
    "Not In State", "State Record Dur.", "Last Evt Type", "Last Evt Val",
    "Last Evt Val w/o Bursts", "Next Evt Type", "Next Evt Val", "Avg Next Evt Val",
    "Avg Last Evt Val", "Given Evt Val", "In Evt Val", "Int. Between Evt", "Not In Evt Val",
    "In Evt Range", "Event Bytes", "Last Tag", "Comm Size", "Comm Recv. Partner",
    "Comm Partner", "Last Send Dur.", "Next Recv Dur.", "Send Bytes in Transit",
    "Send Messages in Transit", "Send BandWidth", "Recv Bytes in Transit",
    "Recv Messages in Transit", "Recv BandWidth", "Recv Negative Messages",
    "Recv Negative Bytes", "Number Of Receives", "Number Of Receive Bytes", "Application ID",
    "Task ID", "Thread ID", "Node ID", "Cpu ID", "In Appl ID", "In Task ID", "In Thread ID",
    "In Node ID", "In Cpu ID"}
COMPOSE = {"As Is", "Sign", "1-Sign", "Mod", "Mod+1", "Div", "Prod", "Add", "Subs",
           "Select Range", "Is In Range", "Is Equal", "Is Equal (Sign)", "Stacked Val",
           "In Stacked Val", "Nesting level", "Delta", "Burst Time", "Join Bursts"}
FILTERS = {"All", "None", "=", "!=", ">", "<", "[x,y]"}
STATISTICS = {"Time", "% Time", "% Time Not Zero", "% Window Time", "# Bursts", "% # Bursts",
              "Integral", "Average value", "Maximum", "Minimum", "Average Burst Time",
              "Stdev Burst Time", "Average per Burst", "Average per Burst != 0",
              "Average value != 0", "# Bursts != 0", "Sum bursts"}
UNITS = {"Nanoseconds", "Microseconds", "Milliseconds", "Seconds", "Minutes", "Hours", "Days"}
COLOR_MODES = {"window_in_gradient_mode", "window_in_null_gradient_mode",
               "window_in_punctual_mode", "window_in_fused_lines_mode"}
BOOLEANS = {"window_comm_lines_enabled", "window_flags_enabled", "window_noncolor_mode",
            "window_logical_filtered", "window_physical_filtered", "window_comm_fromto",
            "window_comm_tagsize", "window_comm_typeval", "window_open", "window_compute_y_max"}


def pairs(text, P, where):
    """'{ N, { {a, b}, {c, d} } }' -> [(a, b), ...], checking N."""
    m = re.match(r"^\{ (\d+), \{ (.*) \} \}$", text)
    if not m:
        P.add("%s: not '{ N, { {level, function}, ... } }': %r" % (where, text[:80]))
        return []
    items = re.findall(r"\{([^,{}]+), ([^{}]+)\}", m.group(2))
    if len(items) != int(m.group(1)):
        P.add("%s: says %s functions, lists %d" % (where, m.group(1), len(items)))
    return items


def check(cfg, pcf=None):
    P = Problems()
    types = set()
    if pcf:
        _, pcf_types = parse_pcf(pcf, P)
    with open(cfg, encoding="utf-8") as f:
        lines = [l.rstrip("\r\n") for l in f]
    if not lines or lines[0] != "#ParaverCFG":
        P.add("first line is not #ParaverCFG")
    windows, histograms, nwin_said, in_desc = 0, [], None, False
    for n, line in enumerate(lines, 1):
        where = "%s:%d" % (os.path.basename(cfg), n)
        if line == "ConfigFile.BeginDescription":
            in_desc = True
            continue
        if line == "ConfigFile.EndDescription":
            in_desc = False
            continue
        if in_desc or not line or line.startswith("#"):
            continue
        if line.startswith("<"):
            if line == "< NEW ANALYZER2D >":
                histograms.append({})
            elif not re.match(r"^< NEW DISPLAYING WINDOW .+ >$", line):
                P.add("%s: unknown block %r" % (where, line))
            continue
        tag, _, rest = line.partition(" ")
        if tag not in WINDOW_TAGS | HISTOGRAM_TAGS | HEADER_TAGS:
            P.add("%s: tag %r is not one Paraver's loader reads" % (where, tag))
            continue
        if tag == "ConfigFile.Version:" and rest != "3.4":
            P.add("%s: version %r" % (where, rest))
        elif tag == "ConfigFile.NumWindows:":
            nwin_said = int(rest)
        elif tag == "window_type":
            windows += 1
            if rest not in ("single", "composed"):
                P.add("%s: window_type %r" % (where, rest))
        elif tag in BOOLEANS and rest not in ("true", "false"):
            P.add("%s: %s %r is not true/false" % (where, tag, rest))
        elif tag == "window_level" and rest not in LEVELS:
            P.add("%s: level %r" % (where, rest))
        elif tag == "window_units" and rest not in UNITS:
            P.add("%s: units %r" % (where, rest))
        elif tag == "window_color_mode" and rest not in COLOR_MODES:
            P.add("%s: colour mode %r" % (where, rest))
        elif tag == "window_selected_functions":
            for part, fn in pairs(rest, P, where):
                ok = SEMANTIC if part in LEVELS else FILTERS if part in FILTER_PARTS else None
                if ok is None:
                    P.add("%s: %r is neither a level nor a filter" % (where, part))
                elif fn not in ok:
                    P.add("%s: %s function %r is not one Paraver has" % (where, part, fn))
        elif tag == "window_compose_functions":
            for level, fn in pairs(rest, P, where):
                if level not in COMPOSE_LEVELS or fn not in COMPOSE:
                    P.add("%s: compose {%s, %s} unknown" % (where, level, fn))
        elif tag == "window_filter_module":
            f = rest.split(" ")
            if f[0] == "evt_type":
                try:
                    n_types, ts = int(f[1]), [int(x) for x in f[2:]]
                except ValueError:
                    P.add("%s: event types %r" % (where, rest))
                    continue
                if n_types != len(ts):
                    P.add("%s: says %d event types, lists %d" % (where, n_types, len(ts)))
                types.update(ts)
                for t in ts:
                    if pcf and t not in pcf_types:
                        P.add("%s: event type %d is not defined in %s" % (where, t, pcf))
            elif f[0] not in FILTER_PARTS:
                P.add("%s: filter %r" % (where, f[0]))
        elif tag == "Analyzer2D.Statistic:" and rest not in STATISTICS:
            P.add("%s: statistic %r is not one Paraver has" % (where, rest))
        elif tag in ("Analyzer2D.ControlWindow:", "Analyzer2D.DataWindow:",
                     "Analyzer2D.3D_ControlWindow:"):
            if not histograms:
                P.add("%s: %s outside a histogram" % (where, tag))
            elif not rest.isdigit() or not 1 <= int(rest) <= windows:
                P.add("%s: %s %s: no such window (%d)" % (where, tag, rest, windows))
    if nwin_said != windows:
        P.add("ConfigFile.NumWindows: %s, but %d windows" % (nwin_said, windows))
    if not windows:
        P.add("no window")
    return P, {"windows": windows, "histograms": len(histograms), "types": sorted(types)}


def main():
    if len(sys.argv) not in (2, 3):
        print(__doc__, file=sys.stderr)
        return 2
    P, info = check(*sys.argv[1:])
    for m in P.items:
        print("cfg_check: %s" % m, file=sys.stderr)
    print("cfg_check: %s: %d windows, %d histograms, event types %s"
          % (sys.argv[1], info["windows"], info["histograms"], info["types"]))
    return 1 if P.items else 0


if __name__ == "__main__":
    sys.exit(main())
