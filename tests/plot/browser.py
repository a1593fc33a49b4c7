# SPDX-License-Identifier: MIT
"""One headless Chromium for all the pages a test loads, driven through the
DevTools protocol on a pipe (--remote-debugging-pipe: JSON messages ended
by a NUL byte, commands on the browser's fd 3, answers and events on its
fd 4). A browser start costs about 2 s of CPU: a test that loads five pages
pays it once.

  b = Browser(argv)            # the chromium command line, without a URL
  html = b.dom(url)            # document.documentElement.outerHTML once loaded
  v = b.eval(expr)             # a JavaScript expression's value in that page
  b.drag(x0, y, x1)            # the mouse pressed at (x0, y), moved and let go at (x1, y)
  b.viewport(w, h)             # the window's size from now on
  b.screenshot(url, w, h, png) # a w x h PNG of the page, no scrollbars
  b.close()
"""
import base64
import fcntl
import json
import os
import select
import subprocess
import tempfile
import time

TIMEOUT = 120  # seconds for one command or one page load


class BrowserError(Exception):
    pass


class Browser:
    def __init__(self, argv):
        cmd_r, self.cmd_w = os.pipe()
        self.ans_r, ans_w = os.pipe()

        def on_fds_3_and_4():
            # above 4 first, so that neither dup2 overwrites the other's source
            a = fcntl.fcntl(cmd_r, fcntl.F_DUPFD, 10)
            b = fcntl.fcntl(ans_w, fcntl.F_DUPFD, 10)
            os.dup2(a, 3)
            os.dup2(b, 4)

        self.err = tempfile.TemporaryFile()
        self.p = subprocess.Popen(argv + ["--remote-debugging-pipe", "about:blank"],
                                  stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                  stderr=self.err, preexec_fn=on_fds_3_and_4, pass_fds=(3, 4))
        os.close(cmd_r)
        os.close(ans_w)
        self.buf = b""
        self.next_id = 0
        self.events = []
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.call("Target.attachToTarget",
                                 {"targetId": target, "flatten": True})["sessionId"]
        self.call("Page.enable", session=True)

    def _read(self, deadline):
        """The next message from the browser."""
        while b"\0" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.ans_r], [], [], left)[0]:
                raise BrowserError("no answer from the browser in %d s" % TIMEOUT)
            chunk = os.read(self.ans_r, 1 << 20)
            if not chunk:
                self.err.seek(0)
                said = self.err.read()[-2000:].decode(errors="replace")
                raise BrowserError("the browser ended: %s" % said)
            self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def call(self, method, params=None, session=False):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = self.session
        os.write(self.cmd_w, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + TIMEOUT
        while True:
            m = self._read(deadline)
            if m.get("id") == self.next_id:
                if "error" in m:
                    raise BrowserError("%s: %s" % (method, m["error"]))
                return m.get("result", {})
            if "method" in m:
                self.events.append(m)

    def _navigate(self, url):
        """Loads url and waits for its load event (its scripts have run)."""
        self.events = []
        r = self.call("Page.navigate", {"url": url}, session=True)
        if r.get("errorText"):
            raise BrowserError("loading %s: %s" % (url, r["errorText"]))
        deadline = time.monotonic() + TIMEOUT
        while not any(e["method"] == "Page.loadEventFired" for e in self.events):
            self.events.append(self._read(deadline))

    def dom(self, url):
        # about:blank first: from the same page, a change of #fragment alone
        # would not load it again
        self._navigate("about:blank")
        self._navigate(url)
        r = self.call("Runtime.evaluate", {"expression": "document.documentElement.outerHTML",
                                           "returnByValue": True}, session=True)
        return r["result"]["value"]

    def eval(self, expr):
        r = self.call("Runtime.evaluate", {"expression": expr, "returnByValue": True},
                      session=True)
        if "exceptionDetails" in r:
            raise BrowserError("%s: %s" % (expr, r["exceptionDetails"]))
        return r["result"].get("value")

    def drag(self, x0, y, x1):
        """What a person does to select: press, move in steps, let go."""
        def mouse(kind, x, **kw):
            self.call("Input.dispatchMouseEvent",
                      dict({"type": kind, "x": x, "y": y, "button": "left"}, **kw), session=True)
        mouse("mouseMoved", x0)
        mouse("mousePressed", x0, clickCount=1, buttons=1)
        for k in range(1, 5):
            mouse("mouseMoved", x0 + (x1 - x0) * k / 4, buttons=1)
        mouse("mouseReleased", x1, clickCount=1)

    def viewport(self, width, height):
        self.call("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
                  session=True)

    def screenshot(self, url, width, height, path):
        self.viewport(width, height)
        self.call("Emulation.setScrollbarsHidden", {"hidden": True}, session=True)
        self._navigate("about:blank")
        self._navigate(url)
        data = self.call("Page.captureScreenshot", {"format": "png"}, session=True)["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))

    def close(self):
        try:
            self.call("Browser.close")
        except BrowserError:
            pass
        try:
            self.p.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()
        os.close(self.cmd_w)
        os.close(self.ans_r)
        self.err.close()
