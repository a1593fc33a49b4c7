# SPDX-License-Identifier: MIT
"""Reads what `paratrace export --format perfetto` writes, for the tests: a
protobuf wire-format decoder (no protobuf library needed) and the few
Perfetto messages the export uses, with the field numbers of
protos/perfetto/trace/ (trace.proto, trace_packet.proto,
track_event/track_event.proto, track_descriptor.proto, process_descriptor.proto,
thread_descriptor.proto, interned_data/interned_data.proto,
track_event/debug_annotation.proto).

read(path) -> list of packets, each a dict:
  seq, flags, ts (None if absent),
  track: {uuid, parent, name, process: {pid, name}, thread: {pid, tid, name}, counter} or None,
  event: {type, track, name, name_iid, categories, flows, terminating, annotations, value} or None
    (annotations: {name: a string, or an int for an unsigned value}),
  names: {iid: name} interned by this packet.
A malformed file raises ValueError naming the offset.
"""
import struct


def _varint(buf, i, n, base):
    """(value, offset after it) of the varint at buf[i]."""
    v, shift = 0, 0
    while True:
        if i >= n:
            raise ValueError("varint runs past the end at offset %d" % (base + i))
        b = buf[i]
        i += 1
        v |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return v, i
        if shift > 63:
            raise ValueError("varint longer than 10 bytes at offset %d" % (base + i))


def fields(buf, base=0):
    """(field number, wire type, value, offset) of every field of a message:
    an int for varint/fixed64/fixed32, bytes for length-delimited."""
    if not isinstance(buf, bytes):
        buf = bytes(buf)
    out = []
    add = out.append
    i, n = 0, len(buf)
    # One-byte varints (most keys, lengths and small values) are read in
    # line: this loop is most of the time a test spends on a large export.
    while i < n:
        at = i
        key = buf[i]
        if key < 0x80:
            i += 1
        else:
            key, i = _varint(buf, i, n, base)
        field, wt = key >> 3, key & 7
        if field == 0:
            raise ValueError("field number 0 at offset %d" % (base + at))
        if wt == 0:
            if i < n and buf[i] < 0x80:
                v = buf[i]
                i += 1
            else:
                v, i = _varint(buf, i, n, base)
        elif wt == 2:
            if i < n and buf[i] < 0x80:
                ln = buf[i]
                i += 1
            else:
                ln, i = _varint(buf, i, n, base)
            if i + ln > n:
                raise ValueError("length %d runs past the end at offset %d" % (ln, base + at))
            v = buf[i:i + ln]
            i += ln
        elif wt == 1:
            if i + 8 > n:
                raise ValueError("fixed64 past the end at offset %d" % (base + at))
            v = int.from_bytes(buf[i:i + 8], "little")
            i += 8
        elif wt == 5:
            if i + 4 > n:
                raise ValueError("fixed32 past the end at offset %d" % (base + at))
            v = int.from_bytes(buf[i:i + 4], "little")
            i += 4
        else:
            raise ValueError("wire type %d at offset %d" % (wt, base + at))
        add((field, wt, v, base + at))
    return out


def _first(fs):
    """The first value of each field."""
    first = {}
    for f, _, v, _ in fs:
        if f not in first:
            first[f] = v
    return first


def _one(fs, num, default=None):
    for f, _, v, _ in fs:
        if f == num:
            return v
    return default


def _all(fs, num):
    return [v for f, _, v, _ in fs if f == num]


def _str(v):
    return v.decode("utf-8") if v is not None else None


def _track(b):
    fs = fields(b)
    t = {"uuid": _one(fs, 1), "name": _str(_one(fs, 2)), "parent": _one(fs, 5),
         "process": None, "thread": None, "counter": _one(fs, 8) is not None}
    p = _one(fs, 3)
    if p is not None:
        pf = fields(p)
        t["process"] = {"pid": _one(pf, 1), "name": _str(_one(pf, 6))}
    th = _one(fs, 4)
    if th is not None:
        tf = fields(th)
        t["thread"] = {"pid": _one(tf, 1), "tid": _one(tf, 2), "name": _str(_one(tf, 5))}
    return t


def _event(b):
    fs = fields(b)
    one = _first(fs)
    ann = {}
    for a in _all(fs, 4) if 4 in one else ():
        af = fields(a)
        v = _one(af, 6)
        ann[_str(_one(af, 10))] = _str(v) if v is not None else _one(af, 3)  # string or uint
    value = one.get(44)
    if value is not None:
        value = struct.unpack("<d", value.to_bytes(8, "little"))[0]
    return {"type": one.get(9), "track": one.get(11), "name": _str(one.get(23)),
            "name_iid": one.get(10), "categories": [_str(c) for c in _all(fs, 22)] if 22 in one else [],
            "flows": _all(fs, 47) if 47 in one else [],
            "terminating": _all(fs, 48) if 48 in one else [], "annotations": ann,
            "value": value}


def counters(packets):
    """Per counter track uuid: (track, [(ts, value), ...] in file order)."""
    tracks = {p["track"]["uuid"]: p["track"] for p in packets if p["track"] and p["track"]["counter"]}
    out = {u: (t, []) for u, t in tracks.items()}
    for p in packets:
        e = p["event"]
        if e and e["type"] == 4 and e["track"] in out:
            out[e["track"]][1].append((p["ts"], e["value"]))
    return out


def read(path):
    data = open(path, "rb").read()
    packets = []
    for field, wt, v, at in fields(data):
        if field != 1 or wt != 2:
            raise ValueError("Trace field %d (wire type %d) at offset %d: not a packet" % (field, wt, at))
        one = _first(fields(v, at))
        names = {}
        interned = one.get(12)
        if interned is not None:
            for en in _all(fields(interned), 2):
                ef = fields(en)
                names[_one(ef, 1)] = _str(_one(ef, 2))
        td = one.get(60)
        te = one.get(11)
        packets.append({"seq": one.get(10), "flags": one.get(13, 0), "ts": one.get(8),
                        "track": _track(td) if td is not None else None,
                        "event": _event(te) if te is not None else None,
                        "names": names, "offset": at})
    return packets


def check(packets):
    """Structural rules every export must follow; returns a list of problems
    the tracks by uuid, and per track uuid the slices (name, begin, end, the
    begin's event) it holds (instants: begin == end)."""
    problems = []
    tracks = {p["track"]["uuid"]: p["track"] for p in packets if p["track"]}
    for t in tracks.values():
        if t["parent"] is not None and t["parent"] not in tracks:
            problems.append("track %d: parent %d undefined" % (t["uuid"], t["parent"]))
    interned = {}
    cleared = set()
    stacks, slices = {}, {}
    order = sorted(range(len(packets)), key=lambda i: (packets[i]["seq"] or 0, i))
    for i in order:
        p = packets[i]
        seq = p["seq"]
        if p["flags"] & 1:
            cleared.add(seq)
            interned[seq] = {}
        interned.setdefault(seq, {}).update(p["names"])
        e = p["event"]
        if not e:
            continue
        if seq not in cleared:
            problems.append("event at offset %d on sequence %s before its state was cleared" % (p["offset"], seq))
        if not p["flags"] & 2:
            problems.append("event at offset %d without SEQ_NEEDS_INCREMENTAL_STATE" % p["offset"])
        if e["track"] not in tracks:
            problems.append("event at offset %d on undefined track %s" % (p["offset"], e["track"]))
        if p["ts"] is None:
            problems.append("event at offset %d without a timestamp" % p["offset"])
            continue
        name = e["name"]
        if e["name_iid"] is not None:
            name = interned[seq].get(e["name_iid"])
            if name is None:
                problems.append("name iid %d not interned on sequence %s" % (e["name_iid"], seq))
        st = stacks.setdefault(e["track"], [])
        if e["type"] == 1:
            st.append((name, p["ts"], e))
        elif e["type"] == 2:
            if not st:
                problems.append("SLICE_END without a begin on track %s at offset %d" % (e["track"], p["offset"]))
                continue
            n, t0, begin = st.pop()
            if p["ts"] < t0:
                problems.append("slice %s ends before it begins" % n)
            slices.setdefault(e["track"], []).append((n, t0, p["ts"], begin))
        elif e["type"] == 3:
            slices.setdefault(e["track"], []).append((name, p["ts"], p["ts"], e))
        elif e["type"] == 4:
            if not tracks.get(e["track"], {}).get("counter"):
                problems.append("counter event at offset %d on a track that is not a counter" % p["offset"])
            elif e["value"] is None:
                problems.append("counter event at offset %d without a value" % p["offset"])
        else:
            problems.append("event type %s at offset %d" % (e["type"], p["offset"]))
    for t, st in stacks.items():
        if st:
            problems.append("track %s: %d slices never end" % (t, len(st)))
    return problems, tracks, slices
