#!/usr/bin/env python3
"""tests/browser.py - render pages in headless Chromium and check them.

usage: browser.py CHROMIUM [--expect-bad] PAGE.html...

Each page is loaded in one headless Chromium at a 1366 x 768 viewport and
checked for what a reader would see as broken:
  - console errors: console.error/assert calls, uncaught exceptions, and
    the browser's own error log entries (a resource that failed to load);
  - broken images: an <img> that did not load or has no pixels;
  - width: the page scrolls sideways (document wider than the viewport),
    an element reaches past the viewport's right or left edge, or a box
    whose content is wider than itself (a table cut off inside its card,
    or scrolling inside it).
Prints one line per problem and "PAGE: ok" or "PAGE: N problems"; exits 1
when a page has problems (with --expect-bad: when a page has none, or
lacks one of the three kinds), 2 when Chromium cannot be driven.

Chromium is driven through the DevTools protocol over a pipe
(--remote-debugging-pipe: commands on fd 3, replies on fd 4, each JSON
message ended by a NUL byte), so only the standard library is needed and
no port is opened. It runs in a fresh profile directory, in a process
group of its own that is ended at exit.
"""
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time

WIDTH, HEIGHT = 1366, 768
TIMEOUT = 60.0

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--hide-scrollbars", "--remote-debugging-pipe", "--window-size=%d,%d" % (WIDTH, HEIGHT)]

# Runs in the page once it has loaded; returns what is broken.
CHECK = r"""
(() => {
  const vw = document.documentElement.clientWidth;
  const name = (el) => {
    let s = el.tagName.toLowerCase();
    if (el.id) s += '#' + el.id;
    if (el.className && typeof el.className === 'string') s += '.' + el.className.trim().split(/\s+/).join('.');
    const t = (el.textContent || '').trim().slice(0, 40);
    return t ? s + ' "' + t + '"' : s;
  };
  const out = {vw: vw, scroll: document.documentElement.scrollWidth, images: 0, broken: [], wide: [], cut: []};
  for (const img of document.images) {
    out.images++;
    if (!img.complete || img.naturalWidth === 0) out.broken.push(img.getAttribute('src'));
  }
  for (const el of document.querySelectorAll('body, body *')) {
    const r = el.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;
    if (r.right > vw + 0.5 || r.left < -0.5)
      out.wide.push(name(el) + ' spans ' + Math.round(r.left) + '..' + Math.round(r.right) + ' px');
    const cs = getComputedStyle(el);
    if (cs.display !== 'inline' && el.clientWidth > 0 && el.scrollWidth > el.clientWidth + 1)
      out.cut.push(name(el) + ': content ' + el.scrollWidth + ' px in ' + el.clientWidth + ' px');
  }
  return out;
})()
"""


class Browser:
    def __init__(self, chromium):
        self.profile = tempfile.mkdtemp(prefix="acsim-chromium-")
        cmd_r, self.cmd_w = os.pipe()
        self.res_r, res_w = os.pipe()

        def child_fds():
            os.dup2(cmd_r, 3)
            os.dup2(res_w, 4)
        self.proc = subprocess.Popen(
            [chromium] + FLAGS + ["--user-data-dir=" + self.profile, "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=open(os.environ.get("ACSIM_BROWSER_LOG", os.devnull), "w"),
            pass_fds=(cmd_r, res_w, 3, 4), preexec_fn=child_fds, start_new_session=True)
        os.close(cmd_r)
        os.close(res_w)
        self.buf = b""
        self.next_id = 0
        self.events = []

    def _read(self, deadline):
        while b"\0" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no answer from chromium")
            ready, _, _ = select.select([self.res_r], [], [], left)
            if ready:
                chunk = os.read(self.res_r, 1 << 16)
                if not chunk:
                    raise EOFError("chromium closed its pipe")
                self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def send(self, method, params=None, session=None):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self.cmd_w, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + TIMEOUT
        while True:
            m = self._read(deadline)
            if m.get("id") == self.next_id:
                if "error" in m:
                    raise RuntimeError("%s: %s" % (method, m["error"]))
                return m.get("result", {})
            self.events.append(m)

    def wait_event(self, method, session):
        deadline = time.monotonic() + TIMEOUT
        for i, m in enumerate(self.events):
            if m.get("method") == method and m.get("sessionId") == session:
                del self.events[i]
                return m
        while True:
            m = self._read(deadline)
            if m.get("method") == method and m.get("sessionId") == session:
                return m
            self.events.append(m)

    def close(self):
        try:
            self.send("Browser.close")
            self.proc.wait(timeout=10)
        except Exception:
            pass
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
        os.close(self.cmd_w)
        os.close(self.res_r)
        shutil.rmtree(self.profile, ignore_errors=True)


def console_errors(events, session):
    errors = []
    for m in events:
        if m.get("sessionId") != session:
            continue
        p = m.get("params", {})
        if m.get("method") == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
            errors.append("console.%s: %s" % (p["type"], " ".join(
                str(a.get("value", a.get("description", ""))) for a in p.get("args", []))))
        elif m.get("method") == "Runtime.exceptionThrown":
            d = p.get("exceptionDetails", {})
            errors.append("exception: %s" % d.get("exception", {}).get("description", d.get("text")))
        elif m.get("method") == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
            e = p["entry"]
            errors.append("error log: %s %s" % (e.get("text", ""), e.get("url", "")))
    return errors


def check_page(b, path):
    target = b.send("Target.createTarget", {"url": "about:blank"})["targetId"]
    session = b.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
    for domain in ("Runtime", "Log", "Page"):
        b.send(domain + ".enable", session=session)
    b.send("Emulation.setDeviceMetricsOverride",
           {"width": WIDTH, "height": HEIGHT, "deviceScaleFactor": 1, "mobile": False},
           session=session)
    b.send("Page.navigate", {"url": "file://" + os.path.abspath(path)}, session=session)
    b.wait_event("Page.loadEventFired", session)
    res = b.send("Runtime.evaluate", {"expression": CHECK, "returnByValue": True},
                 session=session)
    if "exceptionDetails" in res:
        raise RuntimeError("the check failed in the page: %s" % res["exceptionDetails"])
    out = res["result"]["value"]
    kinds = {"console": console_errors(b.events, session), "image": [], "width": []}
    b.events = [m for m in b.events if m.get("sessionId") != session]
    kinds["image"] = ["broken image: %s" % s for s in out["broken"]]
    if out["scroll"] > out["vw"]:
        kinds["width"].append("the page is %d px wide in a %d px viewport" % (out["scroll"], out["vw"]))
    kinds["width"] += ["wider than the viewport: %s" % w for w in out["wide"]]
    kinds["width"] += ["content wider than its box: %s" % c for c in out["cut"]]
    b.send("Target.closeTarget", {"targetId": target})
    return kinds, out["images"]


def main(argv):
    if len(argv) < 3:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    chromium, pages, expect_bad = argv[1], argv[2:], False
    if pages[0] == "--expect-bad":
        expect_bad, pages = True, pages[1:]
    b = Browser(chromium)
    failed = 0
    try:
        for page in pages:
            kinds, images = check_page(b, page)
            problems = [p for k in ("console", "image", "width") for p in kinds[k]]
            for p in problems[:20]:
                print("  " + p)
            if len(problems) > 20:
                print("  ... and %d more" % (len(problems) - 20))
            if expect_bad:
                missing = [k for k in ("console", "image", "width") if not kinds[k]]
                print("%s: %d problems%s" % (page, len(problems),
                      "; not caught: " + ", ".join(missing) if missing else ", every kind caught"))
                failed += bool(missing)
            else:
                print("%s: %s (%d images, %d px viewport)" % (
                    page, "ok" if not problems else "%d problems" % len(problems), images, WIDTH))
                failed += bool(problems)
    except (OSError, EOFError, TimeoutError, RuntimeError, KeyError) as e:
        print("cannot drive chromium: %s" % e)
        return 2
    finally:
        b.close()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
