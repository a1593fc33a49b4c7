#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""libtrace.so's MPI wrappers, written from the table of MPI calls.

    gen_wrappers.py TABLE OUT_C OUT_FORTRAN   the C and the Fortran wrappers
    gen_wrappers.py --symbols TABLE           the names they define, one a line
    gen_wrappers.py --dispatch TABLE OUT_S    the exported entry points (x86-64)

TABLE is include/paratrace/mpi_calls.h: a row X(name, id, family, state)
W(kind, fortran, params) per call. The C wrapper MPI_<name> and the Fortran
one mpi_<name>_ are a frame (below, FRAME_C and FRAME_F: the real function
looked up once, the untraced call, the call's begin, the real call) around
the slots of the row's kind (KINDS_C, KINDS_F): what is done before the
begin, between it and the call, after the call, and when the call was
recorded. A kind's slots name the call's parameters as the row's params do.
The wrappers are static, listed in the order of --symbols in a table
(pt_mpi_wrap_c, pt_mpi_wrap_f): the files are compiled once per MPI ABI
(Open MPI's mpi.h, MPICH's), and the entry points --dispatch writes jump to
the wrappers of the ABI the program's MPI library has. The build runs this
(runtime/mpi/mpi.cmake); its output lives in the build tree only.
"""
import os
import re
import string
import sys
import textwrap

# ---- the table ---------------------------------------------------------------


class Row:
    def __init__(self, name, id_, family, state, line, kind=None, fortran=None, params=None):
        self.name, self.id, self.family, self.state, self.line = name, id_, family, state, line
        self.rule = None
        if kind and "(" in kind:  # COLL(RULE)
            kind, self.rule = re.match(r"(\w+)\((\w+)\)$", kind).groups()
        self.kind, self.fortran = kind, fortran
        self.params = split_params(params) if params is not None else None

    def where(self, table):
        return "%s:%d" % (table, self.line)


def split_params(text):
    """'(int a, const int b[])' -> [('int', 'a'), ('const int []', 'b')]"""
    inner = text.strip()[1:-1].strip()
    if inner in ("", "void"):
        return []
    out = []
    for p in inner.split(","):
        p = " ".join(p.split())
        m = re.match(r"(.*?)(\w+)\s*((?:\[[^\]]*\])*)$", p)
        if not m:
            sys.exit("gen_wrappers: cannot read the parameter '%s'" % p)
        ctype, name, dims = m.groups()
        out.append(((ctype.strip() + (" " + dims if dims else "")).strip(), name))
    return out


def balanced(text, i):
    """The end of the parenthesised group that starts at text[i]."""
    depth = 0
    for j in range(i, len(text)):
        depth += {"(": 1, ")": -1}.get(text[j], 0)
        if depth == 0:
            return j + 1
    sys.exit("gen_wrappers: unbalanced parentheses in the table")


def read_table(path):
    src = open(path).read()
    start = src.index("#define PT_MPI_TABLE(")
    end = src.index("\n\n", start)
    first_line = src.count("\n", 0, start) + 1
    body = src[start:end]
    rows = []
    for m in re.finditer(r"X\(\s*(\w+)\s*,\s*(\d+)\s*,\s*(\w+)\s*,\s*(\d+)\s*\)[\s\\]*", body):
        line = first_line + body.count("\n", 0, m.start())
        row = [m.group(1), int(m.group(2)), m.group(3), int(m.group(4)), line]
        if body.startswith("W(", m.end()):
            w = body[m.end() + 1:balanced(body, m.end() + 1)]
            w = re.sub(r"\\\n", " ", w)[1:-1]
            kind, fortran, params = [x.strip() for x in re.split(r",\s*", w, maxsplit=2)]
            row += [kind, fortran, params]
        rows.append(Row(*row))
    if not rows:
        sys.exit("gen_wrappers: no rows in %s" % path)
    return rows


# ---- slots ---------------------------------------------------------------------


def K(**slots):
    """A kind's slots (before, begun, after, end, body: C text indented by
    4 spaces a level; args: the traced call's arguments replaced; params:
    a Fortran signature of its own; tail: Fortran parameters after ierr,
    the hidden lengths of CHARACTER arguments; frame: another frame)."""
    return slots


# What the C wrapper of each kind does. $call is the call's PT_MPI_CALL_*,
# $real its real function. A status the program ignores is replaced by the
# wrapper's own where the call's end reads it.
STATUS = "MPI_Status mine, *st = status == MPI_STATUS_IGNORE ? &mine : status;"


def wait_c(done):
    """MPI_Wait, MPI_Test: done, whether the call completed the request."""
    return K(before="""
        MPI_Request h = *request;
        int need = pt_mpi_ready && pt_mpi_any_recv(&h, 1);
        MPI_Status mine, *st = need && status == MPI_STATUS_IGNORE ? &mine : status;""",
             begun="""
        if (on)
            pt_mpi_req_claim(&h, 1);""", args={"status": "st"}, end="""
        char done = %s;
        pt_mpi_complete($call, rc, &h, &done, need ? st : NULL, 1);
        pt_mpi_req_unclaim(&h, 1);""" % done)


KINDS_C = {
    "PLAIN": K(end="pt_mpi_end_call($call, rc);"),
    "DOUBLE": K(ret="double", end="pt_mpi_end_call($call, MPI_SUCCESS);"),
    "INIT": K(after="""
        if (rc == MPI_SUCCESS)
            pt_mpi_after_init(-1, -1, 0);""", end="pt_mpi_end_call($call, rc);"),
    "INIT_THREAD": K(after="""
        if (rc == MPI_SUCCESS)
            pt_mpi_after_init(required, provided ? *provided : -1, 0);""",
                     end="pt_mpi_end_call($call, rc);"),
    "FINALIZE": K(begun="pt_mpi_before_finalize();", after="pt_mpi_after_finalize();",
                  end="pt_mpi_end_call($call, rc);"),
    # point to point
    "SEND": K(end="pt_mpi_send_end($call, rc, dest, tag, comm, count, datatype, NULL);"),
    "ISEND": K(end="pt_mpi_send_end($call, rc, dest, tag, comm, count, datatype, request);"),
    "RECV": K(begun=STATUS, args={"status": "st"},
              end="pt_mpi_recv_end($call, rc, comm, st, on, NULL);"),
    "IRECV": K(end="""
        pt_mpi_recv_posted($call, rc, pt_mpi_comm_get(comm), source, tag,
                           pt_mpi_bytes(count, datatype), request, on, 0);"""),
    "SENDRECV": K(begun=STATUS, args={"status": "st"},
                  after="pt_mpi_sent sent = {dest, sendtag, sendcount, sendtype};",
                  end="pt_mpi_recv_end($call, rc, comm, st, on, &sent);"),
    "MPROBE": K(end="""
        pt_mpi_message_seen(rc, comm, message, 1);
        pt_mpi_end_call($call, rc);"""),
    "IMPROBE": K(end="""
        pt_mpi_message_seen(rc, comm, message, rc == MPI_SUCCESS && *flag);
        pt_mpi_end_call($call, rc);"""),
    "MRECV": K(before="MPI_Message h = *message;", begun=STATUS, args={"status": "st"},
               end="pt_mpi_mrecv_end($call, rc, h, st);"),
    "IMRECV": K(before="MPI_Message h = *message;",
                end="pt_mpi_imrecv_end($call, rc, h, count, datatype, request, on);"),
    # persistent requests
    "SEND_INIT": K(end="""
        pt_mpi_send_init_end($call, rc, dest, tag, comm, count, datatype, request);"""),
    "RECV_INIT": K(end="""
        pt_mpi_recv_posted($call, rc, pt_mpi_comm_get(comm), source, tag,
                           pt_mpi_bytes(count, datatype), request, 0, 1);"""),
    "START": K(before="MPI_Request h = *request;", end="pt_mpi_started($call, rc, &h, 1, on);"),
    "STARTALL": K(end="""
        pt_mpi_started($call, rc, array_of_requests, count > 0 ? (size_t)count : 0, on);"""),
    "REQUEST_FREE": K(before="""
        if (request && *request)
            pt_mpi_req_forget((uintptr_t)*request);""", end="pt_mpi_end_call($call, rc);"),
    # completion: the requests are copied before the call, which overwrites
    # the completed ones with MPI_REQUEST_NULL; when one is a receive and
    # the program ignores statuses, the wrapper passes its own
    "WAIT": wait_c("rc == MPI_SUCCESS"),
    "TEST": wait_c("rc == MPI_SUCCESS && *flag"),
    "WAITALL": K(body="""
        return pt_mpi_all_call($call, count, array_of_requests, NULL, array_of_statuses, $real,
                               NULL);"""),
    "TESTALL": K(body="""
        return pt_mpi_all_call($call, count, array_of_requests, flag, array_of_statuses, NULL,
                               $real);"""),
    "WAITANY": K(body="""
        return pt_mpi_any_call($call, count, array_of_requests, index, NULL, status, $real,
                               NULL);"""),
    "TESTANY": K(body="""
        return pt_mpi_any_call($call, count, array_of_requests, index, flag, status, NULL,
                               $real);"""),
    "WAITSOME": K(body="""
        return pt_mpi_some_call($call, incount, array_of_requests, outcount, array_of_indices,
                                array_of_statuses, $real);"""),
    # collectives: the rule reads the arguments, which the call leaves as
    # they were
    "COLL": K(end="""
        pt_mpi_coll_args a = {$coll_args};
        pt_mpi_coll_end($call, rc, PT_MPI_RULE_$rule, &a, NULL);"""),
    "ICOLL": K(end="""
        pt_mpi_coll_args a = {$coll_args};
        pt_mpi_coll_end($call, rc, PT_MPI_RULE_$rule, &a, request);"""),
    # communicators: registered right after the call that made one, in
    # creation order (mpi_comm.c); a freed one leaves the table first
    "COMM_NEW": K(end="""
        if (rc == MPI_SUCCESS && newcomm)
            pt_mpi_comm_created(*newcomm);
        pt_mpi_end_call($call, rc);"""),
    "COMM_FREE": K(before="""
        if (comm && pt_mpi_ready)
            pt_mpi_comm_freed(*comm);""", end="pt_mpi_end_call($call, rc);"),
    "TYPE_FREE": K(before="__atomic_add_fetch(&pt_mpi_type_gen, 1, __ATOMIC_RELAXED);",
                   end="pt_mpi_end_call($call, rc);"),
    # one-sided, I/O
    "WIN_FREE": K(before="""
        if (win && pt_mpi_ready)
            pt_mpi_win_freed(*win);""", end="pt_mpi_end_call($call, rc);"),
    "RMA": K(end="""
        pt_mpi_rma_end($call, rc, target_rank, win,
                       pt_mpi_bytes(origin_count, origin_datatype));"""),
    "RMA_ATOMIC": K(end="pt_mpi_rma_end($call, rc, target_rank, win, pt_mpi_bytes(1, datatype));"),
    "RMA_LOCK": K(end="pt_mpi_rma_end($call, rc, rank, win, 0);"),
    "IO": K(end="pt_mpi_io_end($call, rc, fh, count, datatype);"),
    "FILE_OPEN": K(end="""
        pt_mpi_file_open_end($call, rc, rc == MPI_SUCCESS ? *fh : (MPI_File)0, filename,
                             (size_t)-1);"""),
}
KINDS_C["TESTSOME"] = KINDS_C["WAITSOME"]
# MPI_Sendrecv_replace: one buffer, one count and type for both messages
KINDS_C["SENDRECV_REPLACE"] = dict(KINDS_C["SENDRECV"],
                                   after="pt_mpi_sent sent = {dest, sendtag, count, datatype};")

# The Wait and Test families in Fortran: the C handles of the requests are
# taken before the call; after it the Fortran statuses of the completed
# receives are turned into C ones. flag: the Test calls' condition for
# having completed them.
FCLAIM = """
        if (on && need)
            pt_mpi_req_claim(%s);"""
FREQUESTS = """
        size_t n = *%s > 0 ? (size_t)*%s : 0;
        pt_mpi_scratch s;
        int got = pt_mpi_frequests(array_of_requests, n, &s, %s), need = got > 0;"""
FSTATUS_NEED = """
        MPI_Fint mine[PT_MPI_FSTATUS], *st = need ? pt_mpi_fstatus_for(status, mine) : status;"""
FSTATUSES_NEED = """
        MPI_Fint *st = need ? pt_mpi_fstatuses_for(array_of_statuses, &s) : array_of_statuses;"""


def wait_f(flag):
    """MPI_WAIT, MPI_TEST."""
    return K(before="""
        MPI_Request h = pt_mpi_freq(request);
        int need = pt_mpi_ready && pt_mpi_any_recv(&h, 1);""" + FSTATUS_NEED,
             begun=FCLAIM % "&h, 1", args={"status": "st"}, end="""
        pt_mpi_fdone_one($call, *ierr, pt_mpi_ready && *ierr == MPI_SUCCESS%s, &h,
                         need ? st : NULL);
        if (need)
            pt_mpi_req_unclaim(&h, 1);""" % flag)


def waitall_f(flag):
    """MPI_WAITALL, MPI_TESTALL."""
    return K(before=FREQUESTS % ("count", "count", "n") + FSTATUSES_NEED,
             begun=FCLAIM % "s.req, n", args={"array_of_statuses": "st"}, end="""
        if (got >= 0 && *ierr == MPI_SUCCESS%s)
            pt_mpi_fcomplete($call, s.req, NULL, need ? st : NULL, s.st2, n);
        else
            pt_mpi_end_call($call, *ierr);
        if (need)
            pt_mpi_req_unclaim(s.req, n);""" % flag)


def waitany_f(flag):
    """MPI_WAITANY, MPI_TESTANY: the index is 1-based."""
    return K(before=FREQUESTS % ("count", "count", "n") + FSTATUS_NEED,
             begun=FCLAIM % "s.req, n", args={"status": "st"}, end="""
        int done = got >= 0 && *ierr == MPI_SUCCESS%s && *index >= 1 && (size_t)*index <= n;
        pt_mpi_fdone_one($call, *ierr, done, done ? &s.req[*index - 1] : NULL,
                         need ? st : NULL);
        if (need)
            pt_mpi_req_unclaim(s.req, n);""" % flag)


# What the Fortran wrapper of each kind does: every argument is an address,
# the handles are Fortran integers (pt_mpi_fcomm... make C ones of them),
# *ierr is what the call returned.
FSTATUS = """
        MPI_Fint mine[PT_MPI_FSTATUS], *st = pt_mpi_fstatus_for(status, mine);"""
FREQ = """
        MPI_Request h = *ierr == MPI_SUCCESS ? pt_mpi_freq(request) : (MPI_Request)0;"""
KINDS_F = {
    "PLAIN": K(frame="plain"),
    "DOUBLE": K(frame="double"),
    "INIT": K(params=[], after="""
        if (*ierr == MPI_SUCCESS)
            pt_mpi_after_init(-1, -1, 1);""", end="pt_mpi_end_call($call, *ierr);"),
    "INIT_THREAD": K(params=["required", "provided"], after="""
        if (*ierr == MPI_SUCCESS)
            pt_mpi_after_init(*required, *provided, 1);""", end="pt_mpi_end_call($call, *ierr);"),
    "FINALIZE": K(params=[], begun="pt_mpi_before_finalize();", after="pt_mpi_after_finalize();",
                  end="pt_mpi_end_call($call, *ierr);"),
    "SEND": K(end="""
        pt_mpi_send_end($call, *ierr, *dest, *tag, pt_mpi_fcomm(comm), *count,
                        pt_mpi_ftype(datatype), NULL);"""),
    "ISEND": K(end=FREQ + """
        pt_mpi_send_end($call, *ierr, *dest, *tag, pt_mpi_fcomm(comm), *count,
                        pt_mpi_ftype(datatype), &h);"""),
    "RECV": K(before=FSTATUS, args={"status": "st"},
              end="pt_mpi_frecv_end($call, ierr, comm, st, on, NULL);"),
    "IRECV": K(end=FREQ + """
        pt_mpi_recv_posted($call, *ierr, pt_mpi_comm_get(pt_mpi_fcomm(comm)), *source, *tag,
                           pt_mpi_bytes(*count, pt_mpi_ftype(datatype)), &h, on, 0);"""),
    "SENDRECV": K(before=FSTATUS, args={"status": "st"}, end="""
        pt_mpi_sent sent = {*dest, *sendtag, *sendcount, pt_mpi_ftype(sendtype)};
        pt_mpi_frecv_end($call, ierr, comm, st, on, &sent);"""),
    "SEND_INIT": K(end=FREQ + """
        pt_mpi_send_init_end($call, *ierr, *dest, *tag, pt_mpi_fcomm(comm), *count,
                             pt_mpi_ftype(datatype), &h);"""),
    "RECV_INIT": K(end=FREQ + """
        pt_mpi_recv_posted($call, *ierr, pt_mpi_comm_get(pt_mpi_fcomm(comm)), *source, *tag,
                           pt_mpi_bytes(*count, pt_mpi_ftype(datatype)), &h, 0, 1);"""),
    "START": K(before="MPI_Request h = pt_mpi_freq(request);",
               end="pt_mpi_started($call, *ierr, &h, 1, on);"),
    "STARTALL": K(before="""
        size_t n = *count > 0 ? (size_t)*count : 0;
        pt_mpi_scratch s;
        int have = pt_mpi_ready && pt_mpi_scratch_get(n, &s) == 0;
        for (size_t i = 0; have && i < n; i++)
            s.req[i] = pt_mpi_freq(&array_of_requests[i]);""",
                  end="pt_mpi_started($call, *ierr, have ? s.req : NULL, have ? n : 0, on);"),
    "REQUEST_FREE": K(before="""
        MPI_Request h = pt_mpi_freq(request);
        if (h)
            pt_mpi_req_forget((uintptr_t)h);""", end="pt_mpi_end_call($call, *ierr);"),
    # completion: the C handles of the requests are taken before the call;
    # after it the Fortran statuses of the completed receives are turned
    # into C ones
    "WAIT": wait_f(""),
    "TEST": wait_f(" && *flag"),
    "WAITALL": waitall_f(""),
    "TESTALL": waitall_f(" && *flag"),
    "WAITANY": waitany_f(""),
    "TESTANY": waitany_f(" && *flag"),
    # twice the room: the handles and C statuses of the completed ones
    "WAITSOME": K(before=FREQUESTS % ("incount", "incount", "2 * n + 2") + FSTATUSES_NEED,
                  begun=FCLAIM % "s.req, n", args={"array_of_statuses": "st"}, end="""
        if (got >= 0) {
            pt_mpi_fsome_end($call, ierr, outcount, array_of_indices, need ? st : NULL, &s,
                             2 * n + 2);
            if (need)
                pt_mpi_req_unclaim(s.req, n);
        } else {
            pt_mpi_end_call($call, *ierr);
        }"""),
    "COLL": K(end="""
        pt_mpi_coll_args a = {$coll_args};
        pt_mpi_coll_end($call, *ierr, PT_MPI_RULE_$rule, &a, NULL);"""),
    "COMM_NEW": K(end="""
        if (*ierr == MPI_SUCCESS)
            pt_mpi_comm_created(pt_mpi_fcomm(newcomm));
        pt_mpi_end_call($call, *ierr);"""),
    "COMM_FREE": K(before="""
        MPI_Comm c = pt_mpi_fcomm(comm);
        if (c)
            pt_mpi_comm_freed(c);""", end="pt_mpi_end_call($call, *ierr);"),
    "TYPE_FREE": K(before="__atomic_add_fetch(&pt_mpi_type_gen, 1, __ATOMIC_RELAXED);",
                   end="pt_mpi_end_call($call, *ierr);"),
    "IO": K(end="""
        pt_mpi_io_end($call, *ierr, pt_mpi_ffile(fh), *count, pt_mpi_ftype(datatype));"""),
    # the name is a CHARACTER argument: its length is passed last, after
    # ierr, by value (gfortran's size_t), and the name is blank-padded
    "FILE_OPEN": K(tail=["size_t filename_len"], end="""
        pt_mpi_file_open_end($call, *ierr, *ierr == MPI_SUCCESS ? pt_mpi_ffile(fh) : (MPI_File)0,
                             (const char *)filename, filename_len);"""),
}
KINDS_F["TESTSOME"] = KINDS_F["WAITSOME"]
KINDS_F["SENDRECV_REPLACE"] = dict(KINDS_F["SENDRECV"], end="""
        pt_mpi_sent sent = {*dest, *sendtag, *count, pt_mpi_ftype(datatype)};
        pt_mpi_frecv_end($call, ierr, comm, st, on, &sent);""")

# The arguments each collective's rule reads (pt_mpi_coll_end, mpi_coll.c),
# besides comm.
COLL_RULES = {
    "BARRIER": "",
    "BCAST": "root count datatype",
    "REDUCE": "root count datatype",
    "ALLREDUCE": "count datatype",
    "GATHER": "root sendbuf sendcount sendtype recvcount recvtype",
    "GATHERV": "root sendbuf sendcount sendtype recvcounts recvtype",
    "SCATTER": "root sendcount sendtype recvbuf recvcount recvtype",
    "SCATTERV": "root sendcounts sendtype recvbuf recvcount recvtype",
    "ALLGATHER": "sendbuf sendcount sendtype recvcount recvtype",
    "ALLGATHERV": "sendbuf sendcount sendtype recvcounts recvtype",
    "ALLTOALL": "sendbuf sendcount sendtype recvcount recvtype",
    "ALLTOALLV": "sendbuf sendcounts sendtype recvcounts recvtype",
    "ALLTOALLW": "sendbuf sendcounts sendtypes recvcounts recvtypes",
    "REDUCE_SCATTER": "recvcounts datatype",
    "REDUCE_SCATTER_BLOCK": "recvcount datatype",
    "NEIGHBOR_ALLGATHER": "sendcount sendtype recvcount recvtype",
    "NEIGHBOR_ALLGATHERV": "sendcount sendtype recvcounts recvtype",
    "NEIGHBOR_ALLTOALL": "sendcount sendtype recvcount recvtype",
    "NEIGHBOR_ALLTOALLV": "sendcounts sendtype recvcounts recvtype",
    "NEIGHBOR_ALLTOALLW": "sendcounts sendtypes recvcounts recvtypes",
}
# A field of pt_mpi_coll_args from its parameter: (C, Fortran); None: the
# Fortran wrappers cannot describe it (an array of handles).
COLL_FIELDS = {
    "comm": ("comm", "pt_mpi_fcomm(comm)"),
    "root": ("root", "*root"),
    "sendbuf": ("sendbuf == MPI_IN_PLACE", "pt_mpi_fin_place(sendbuf)"),
    "recvbuf": ("recvbuf == MPI_IN_PLACE", "pt_mpi_fin_place(recvbuf)"),
    "count": ("count", "*count"),
    "sendcount": ("sendcount", "*sendcount"),
    "recvcount": ("recvcount", "*recvcount"),
    "datatype": ("datatype", "pt_mpi_ftype(datatype)"),
    "sendtype": ("sendtype", "pt_mpi_ftype(sendtype)"),
    "recvtype": ("recvtype", "pt_mpi_ftype(recvtype)"),
    "sendcounts": ("sendcounts", "sendcounts"),
    "recvcounts": ("recvcounts", "recvcounts"),
    "sendtypes": ("sendtypes", None),
    "recvtypes": ("recvtypes", None),
}


def coll_args(row, lang):
    if row.rule not in COLL_RULES:
        fail(row, "no collective rule %s" % row.rule)
    fields = ["comm"] + COLL_RULES[row.rule].split()
    if "root" not in fields:
        fields.insert(1, "root")
    out = []
    for f in fields:
        expr = COLL_FIELDS[f][lang == "f"] if f in [n for _, n in row.params] else None
        if f == "root" and expr is None:
            expr = "-1"
        if expr is None:
            fail(row, "the rule %s reads %s, which the %s wrapper cannot give" %
                 (row.rule, f, "Fortran" if lang == "f" else "C"))
        name = f + "_in_place" if f.endswith("buf") else f
        out.append(".%s = %s" % (name, expr))
    return ", ".join(out)


# ---- frames ---------------------------------------------------------------------

# The C wrapper. Untraced it is exactly the real call; traced the call's
# begin is written before the real call, which never runs inside the
# runtime's region, and its end after; it returns what the library
# returned, errno as the library left it.
FRAME_C = """\
static $ret w_MPI_$name($params)
{
    PT_MPI_REAL(MPI_$name)
    if (!pt_mpi_on())
        return $real($args);
$traced}
"""
TRACED_C = """\
$before    uint64_t on = pt_mpi_begin_call($call);
$begun    $ret rc = $real($traced_args);
$after$end    return rc;
"""

# The Fortran wrapper: the same, around the library's own Fortran routine.
FRAME_F = """\
static void w_$fname($params)
{
    PT_MPI_FREAL(w_$fname, "$fname")
    if (!pt_mpi_on()) {
        real($args);
        return;
    }
$before    uint64_t on = pt_mpi_begin_call($call);
$begun    real($traced_args);
$after$end}
"""
# A call only bracketed is forwarded with 16 words of arguments whatever its
# number (mpi_fortran.c says why that is safe).
FRAME_F_PLAIN = """\
static void w_$fname(void *a, void *b, void *c, void *d, void *e, void *f, void *g,
    void *h, void *i, void *j, void *k, void *l, void *m, void *o, void *p, void *q)
{
    static pt_mpi_fwords real;
    if (pt_unlikely(!real) && !(real = (pt_mpi_fwords)pt_mpi_sym_next("$fname"))) {
        pt_mpi_missing("$fname");
        return;
    }
    if (!pt_mpi_on()) {
        real(a, b, c, d, e, f, g, h, i, j, k, l, m, o, p, q);
        return;
    }
    uint64_t on = pt_mpi_begin_call($call);
    real(a, b, c, d, e, f, g, h, i, j, k, l, m, o, p, q);
    if (on) /* where its ierr is is not known here */
        pt_mpi_end_call($call, MPI_SUCCESS);
}
"""
# MPI_WTIME and MPI_WTICK are functions returning a double.
FRAME_F_DOUBLE = """\
static double w_$fname(void)
{
    static double (*real)(void);
    if (pt_unlikely(!real) && !(real = (double (*)(void))pt_mpi_sym_next("$fname")))
        return (double)pt_mpi_missing("$fname");
    if (!pt_mpi_on())
        return real();
    uint64_t on = pt_mpi_begin_call($call);
    double r = real();
    if (on)
        pt_mpi_end_call($call, MPI_SUCCESS);
    return r;
}
"""


def fortran_name(row):
    """gfortran's naming, and most compilers': lower case, one trailing
    underscore (the one name wrapped)."""
    return "mpi_%s_" % row.name.lower()


def fail(row, msg):
    sys.exit("gen_wrappers: MPI_%s: %s" % (row.name, msg))


def block(text, level):
    """Slot text at `level` tabs, its 4-space indentation as tabs; a line
    after one that ends with a comma, an open parenthesis or && continues
    it (wrap() breaks the lines again where the output needs it)."""
    if not text:
        return ""
    out = []
    for line in textwrap.dedent(text).strip("\n").split("\n"):
        if out and out[-1].rstrip().endswith((",", "(", "&&", "||")):
            out[-1] = out[-1].rstrip() + " " + line.strip()
        else:
            spaces = len(line) - len(line.lstrip(" "))
            out.append("\t" * (level + spaces // 4) + line.lstrip(" "))
    return "\n".join(out) + "\n"


def wrap(line, width=100):
    """A line longer than width broken after the commas between the
    arguments of the first parenthesis or brace it opens, the rest aligned
    under it."""
    opens = [i for i in (line.find("("), line.find("{")) if i >= 0]
    if len(line.expandtabs(8)) <= width or not opens:
        return line
    start = min(opens)
    indent = line[:len(line) - len(line.lstrip("\t"))]
    lead = indent + " " * (len(line[:start + 1].expandtabs(8)) - len(indent) * 8)
    pieces, depth, last = [], 0, 0
    for i, ch in enumerate(line):
        depth += ch in "({[" and 1 or ch in ")}]" and -1 or 0
        if ch == "," and depth == 1 and i > start and line[i + 1:i + 2] == " ":
            pieces.append(line[last:i + 1])
            last = i + 2
    pieces.append(line[last:])
    out, cur = [], ""
    for piece in pieces:
        if cur and len((cur + " " + piece).expandtabs(8)) > width:
            out.append(cur)
            cur = lead + piece
        else:
            cur = cur + " " + piece if cur else piece
    out.append(cur)
    return "\n".join(out)


def tabs(text):
    return re.sub(r"(?m)^((?:    )+)", lambda m: "\t" * (len(m.group(1)) // 4), text)


def with_slots(frame, slots):
    """A frame's $before, $begun, $after and $end filled with the kind's
    slots; the end runs when the call was recorded."""
    for name in ("before", "begun", "after"):
        frame = frame.replace("$" + name, block(slots.get(name), 1))
    end = block(slots.get("end"), 2)
    if end:
        end = "\tif (on)%s\n%s%s" % (("", end, "") if end.count("\n") == 1 else
                                       (" {", end, "\t}\n"))
    return tabs(frame.replace("$end", end))


def fill(template, row, lang, **values):
    values.update(call="PT_MPI_CALL_" + row.name, name=row.name, fname=fortran_name(row))
    if "$coll_args" in template:
        values["coll_args"] = coll_args(row, lang)
    try:
        return string.Template(template).substitute(values)
    except KeyError as e:
        fail(row, "a slot names $%s" % e.args[0])


def traced_args(row, names, slots):
    args = dict(slots.get("args", {}))
    for a in args:
        if a not in names:
            fail(row, "the kind %s passes its own %s, a parameter the row lacks" % (row.kind, a))
    return ", ".join(args.get(n, n) for n in names)


def wrapper_c(row):
    slots = KINDS_C.get(row.kind)
    if slots is None:
        fail(row, "no C body for the kind %s" % row.kind)
    names = [n for _, n in row.params]
    params = ", ".join(c_param(t, n) for t, n in row.params) or "void"
    real = "real_MPI_" + row.name
    traced = block(slots["body"], 1) if "body" in slots else with_slots(TRACED_C, slots)
    text = tabs(FRAME_C).replace("$traced", traced)
    return fill(text, row, "c", ret=slots.get("ret", "int"), params=params, args=", ".join(names),
                real=real, traced_args=traced_args(row, names, slots), rule=row.rule or "")


def c_param(ctype, name):
    """('const int []', 'x') -> 'const int x[]'; ('int *', 'p') -> 'int *p'"""
    m = re.match(r"(.*?)\s*((?:\[[^\]]*\])+)$", ctype)
    base, dims = (m.group(1), m.group(2)) if m else (ctype, "")
    sep = "" if base.endswith("*") else " "
    return base + sep + name + dims


def wrapper_f(row):
    kind = row.kind if row.fortran == "SAME" else "PLAIN"
    slots = KINDS_F.get(kind)
    if slots is None:
        fail(row, "no Fortran body for the kind %s (make its fortran column PLAIN)" % kind)
    frame = slots.get("frame")
    if frame:
        text = {"plain": FRAME_F_PLAIN, "double": FRAME_F_DOUBLE}[frame]
        return fill(tabs(text), row, "f")
    # the C parameters as addresses: a buffer's is the buffer, a value's
    # a Fortran INTEGER (handles too), then ierr
    fparams = [("void *" if "void" in t else "MPI_Fint *") + n for t, n in row.params]
    if "params" in slots:
        fparams = ["MPI_Fint *" + n for n in slots["params"]]
    fparams.append("MPI_Fint *ierr")
    fparams += slots.get("tail", [])
    names = [re.split(r"[\s*]", p)[-1] for p in fparams]
    return fill(with_slots(FRAME_F, slots), row, "f", params=", ".join(fparams),
                args=", ".join(names), traced_args=traced_args(row, names, slots),
                rule=row.rule or "")


# ---- output ---------------------------------------------------------------------

HEAD = """\
/* %s (docs/MPI.md), one per row of include/paratrace/mpi_calls.h
 * in its order. Written by runtime/mpi/gen_wrappers.py when libtrace.so is
 * built: edit those two, not this. */
#define _GNU_SOURCE
#include "mpi_internal.h"
%s
"""


def row_comment(row, table):
    return "/* %s: X(%s, %d, %s, %d) W(%s%s, %s) */\n" % (
        row.where(table), row.name, row.id, row.family, row.state, row.kind,
        "(%s)" % row.rule if row.rule else "", row.fortran)


def write(path, text):
    """Written whole or not at all: two builds of the same tree may run this
    at once (the wrappers are sources of two targets)."""
    tmp = "%s.%d.tmp" % (path, os.getpid())
    with open(tmp, "w") as f:
        f.write("\n".join(wrap(line) for line in text.split("\n")))
    os.replace(tmp, path)


def wrapped(rows):
    return [r for r in rows if r.kind is not None]


def symbols(rows):
    out = []
    for r in wrapped(rows):
        out.append("MPI_" + r.name)
        if r.fortran != "NONE":
            out.append(fortran_name(r))
    return sorted(out)


def table_c(array, names):
    """The wrappers of one file in the dispatcher's order (DISPATCH_S's
    slots): the ABI part's description of itself (mpi_abi.h) points at it."""
    body = "".join("\t(void *)w_%s,\n" % n for n in names)
    return ("\nPT_HIDDEN void *const %s[] = {\n%s};\nPT_HIDDEN const size_t %s_n = %d;\n" %
            (array, body, array, len(names)))


# The dispatcher: one exported entry point per name, which jumps through
# its slot to the wrapper of the ABI the process's MPI library has. A slot
# starts at a stub that has the ABI picked (pt_mpi_pick, mpi_abi.c, which
# fills every slot) and jumps again; the arguments, in registers or on the
# stack, are never touched, whatever the types of the ABI's handles.
DISPATCH_HEAD = """\
/* libtrace.so's MPI_* and mpi_*_ entry points (docs/MPI.md, "One library,
 * two ABIs"): written by runtime/mpi/gen_wrappers.py from
 * include/paratrace/mpi_calls.h. x86-64 System V. */
\t.section .note.GNU-stack,"",@progbits
\t.text
"""
DISPATCH_ENTRY = """\
\t.globl %(name)s
\t.type %(name)s, @function
\t.p2align 4
%(name)s:
\t.cfi_startproc
\tendbr64
\tjmp *pt_mpi_slots+%(off)d(%%rip)
\t.cfi_endproc
\t.size %(name)s, .-%(name)s
"""
# Saves what a call's arguments may be in (the six integer registers, %rax
# for a variadic call such as MPI_Pcontrol, %xmm0-7), picks, restores, and
# jumps to the slot numbered in %r11, a register no argument uses.
DISPATCH_PICK = """\
\t.p2align 4
.Lpt_mpi_pick:
\t.cfi_startproc
\tpush %rbp
\t.cfi_def_cfa_offset 16
\t.cfi_offset %rbp, -16
\tmov %rsp, %rbp
\t.cfi_def_cfa_register %rbp
\tpush %rdi
\tpush %rsi
\tpush %rdx
\tpush %rcx
\tpush %r8
\tpush %r9
\tpush %rax
\tpush %r11
\tsub $128, %rsp
\tmovdqu %xmm0, 0(%rsp)
\tmovdqu %xmm1, 16(%rsp)
\tmovdqu %xmm2, 32(%rsp)
\tmovdqu %xmm3, 48(%rsp)
\tmovdqu %xmm4, 64(%rsp)
\tmovdqu %xmm5, 80(%rsp)
\tmovdqu %xmm6, 96(%rsp)
\tmovdqu %xmm7, 112(%rsp)
\tand $-16, %rsp
\tcall pt_mpi_pick
\tlea -192(%rbp), %rsp
\tmovdqu 0(%rsp), %xmm0
\tmovdqu 16(%rsp), %xmm1
\tmovdqu 32(%rsp), %xmm2
\tmovdqu 48(%rsp), %xmm3
\tmovdqu 64(%rsp), %xmm4
\tmovdqu 80(%rsp), %xmm5
\tmovdqu 96(%rsp), %xmm6
\tmovdqu 112(%rsp), %xmm7
\tadd $128, %rsp
\tpop %r11
\tpop %rax
\tpop %r9
\tpop %r8
\tpop %rcx
\tpop %rdx
\tpop %rsi
\tpop %rdi
\tpop %rbp
\t.cfi_def_cfa %rsp, 8
\tlea pt_mpi_slots(%rip), %r10
\tjmp *(%r10,%r11,8)
\t.cfi_endproc
"""


def dispatch_s(names):
    out = [DISPATCH_HEAD]
    for i, n in enumerate(names):
        out.append(DISPATCH_ENTRY % {"name": n, "off": 8 * i})
    out.append("\t.hidden pt_mpi_pick\n" + DISPATCH_PICK)
    for i in range(len(names)):
        out.append(".Lpt_mpi_first%d:\n\tmov $%d, %%r11d\n\tjmp .Lpt_mpi_pick\n" % (i, i))
    out.append("\n\t.data\n\t.p2align 3\n\t.globl pt_mpi_slots\n\t.hidden pt_mpi_slots\n"
               "pt_mpi_slots:\n")
    out.extend("\t.quad .Lpt_mpi_first%d\n" % i for i in range(len(names)))
    out.append("\t.size pt_mpi_slots, .-pt_mpi_slots\n")
    out.append("\t.section .rodata\n\t.p2align 3\n\t.globl pt_mpi_nslots\n"
               "\t.hidden pt_mpi_nslots\npt_mpi_nslots:\n\t.quad %d\n" % len(names))
    return "".join(out)


def main(argv):
    if len(argv) == 3 and argv[1] == "--symbols":
        print("\n".join(symbols(read_table(argv[2]))))
        return
    if len(argv) == 4 and argv[1] == "--dispatch":
        write(argv[3], dispatch_s(symbols(read_table(argv[2]))))
        return
    if len(argv) != 4:
        sys.exit(__doc__)
    table, out_c, out_f = argv[1:]
    rows = read_table(table)
    shown = "include/paratrace/" + os.path.basename(table)
    for r in wrapped(rows):
        if r.fortran not in ("SAME", "PLAIN", "NONE"):
            fail(r, "fortran is SAME, PLAIN or NONE, not %s" % r.fortran)
    c = HEAD % ("The C API's wrappers", """
/* Open MPI marks the MPI-2 calls MPI-3 deprecated (MPI_Attr_get,
 * MPI_Keyval_create): their wrappers still pass them on. */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
""")
    c += "".join("\n" + row_comment(r, shown) + wrapper_c(r) + same_type(r) for r in wrapped(rows))
    names = symbols(rows)
    c += table_c("pt_mpi_wrap_c", [n for n in names if n.startswith("MPI_")])
    f = HEAD % ("The Fortran entry points' wrappers", '#include "mpi_fortran.h"\n')
    f += "".join("\n" + row_comment(r, shown) + wrapper_f(r) for r in wrapped(rows)
                 if r.fortran != "NONE")
    f += table_c("pt_mpi_wrap_f", [n for n in names if not n.startswith("MPI_")])
    write(out_c, c)
    write(out_f, f)


def same_type(row):
    """The compiler checks the row's parameters against this ABI's mpi.h."""
    return ("_Static_assert(__builtin_types_compatible_p(__typeof__(w_MPI_%s), "
            "__typeof__(PMPI_%s)),\n\t       \"MPI_%s: the row's parameters are not mpi.h's\");\n" %
            (row.name, row.name, row.name))


if __name__ == "__main__":
    main(sys.argv)
