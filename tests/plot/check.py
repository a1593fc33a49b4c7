# SPDX-License-Identifier: MIT
"""What the plot tests share (and the analyzer's, for the terminal):
failures collected, not raised, so one run reports every disagreement;
commands run with their status checked."""
import os
import pty
import select
import subprocess
import sys

FAILS = []


def fail(msg):
    FAILS.append(msg)
    print("FAIL: " + msg, file=sys.stderr)


def expect(cond, msg):
    if not cond:
        fail(msg)


def run(args, rc=0, env=None, timeout=300):
    """args run to completion; a status other than rc (None: any) fails."""
    p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                       timeout=timeout)
    if rc is not None and p.returncode != rc:
        fail("%s: exit %d, expected %d\nstdout: %s\nstderr: %s"
             % (" ".join(args), p.returncode, rc, p.stdout[-2000:], p.stderr[-3000:]))
    return p


def on_terminal(args):
    """Runs args with stdout and stderr on a pseudo-terminal; its output."""
    pid, fd = pty.fork()
    if pid == 0:
        os.execv(args[0], args)
    out = b""
    while True:
        r, _, _ = select.select([fd], [], [], 60)
        if not r:
            break
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    _, status = os.waitpid(pid, 0)
    expect(os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0,
           "%s on a terminal: status %d" % (" ".join(args), status))
    return out.decode(errors="replace")


def finish(done=""):
    """Exit status of the test: 1 if anything failed."""
    if FAILS:
        print("%d failure(s)" % len(FAILS), file=sys.stderr)
        sys.exit(1)
    print("ok" + (": " + done if done else ""))
