#!/usr/bin/python3
"""Open a speedscope profile in the real speedscope web app and report what it shows.

Usage:
  speedscope_view.py [--speedscope DIR] [--chromium PATH]
                     [--view left-heavy|time-order|sandwich] [--screenshot PNG]
                     [--width W] [--height H] [--timeout S] PROFILE.json

What it does:
  1. Writes a small JavaScript file calling speedscope.loadFileFromBase64(name,
     base64) and opens DIR/dist/release/index.html#localProfilePath=<that file>
     in headless Chromium -- the same mechanism speedscope's own command line
     tool (bin/cli.mjs) uses to open a local file.
  2. Talks to Chromium through the DevTools protocol over
     --remote-debugging-pipe (NUL-terminated JSON messages; Chromium reads
     fd 3 and writes fd 4).  No third-party Python or Node packages are used.
  3. Waits until the flame chart is on the page, presses the keyboard shortcut
     of the requested view (1 = Time Order, 2 = Left Heavy, 3 = Sandwich) and
     waits until that toolbar tab is the active one.
  4. --screenshot: saves a PNG of the page before the mouse is ever moved, so
     no tooltip or hover highlight is in the picture.
  5. Time Order / Left Heavy: hovers along each row of the flame chart and
     reads speedscope's hover tooltip from the DOM.  The tooltip reads
     "<weight> (<percent>) <name>", plus a "file:line" line when the frame has
     one.  A row is sampled every 0.5 % of the chart's width (so every frame
     at least that wide is found) and wherever the tooltip changes between two
     samples the boundary is bisected down to the pixel.  Row 0 is the root
     row at the top; each deeper row is only searched inside the frames of
     the row above it, and the scan stops at the first empty row.  The page
     is made taller when the stacks are deeper than the window.
     The hovering is done by dispatching mousemove events, inside the page,
     to the element under each point (one DevTools round trip per row rather
     than per point, which keeps it fast on a loaded machine).  Afterwards
     the widest frames are hovered once more with real mouse input
     (Input.dispatchMouseEvent), and the tooltips must agree.
     Sandwich: reads the rows of the sandwich table (Total, Self, Symbol Name),
     scrolling through the virtualised list.
  6. Prints one JSON object on stdout, for example:
       {"profile_name": "test", "thread_names": ["w (42/42)"],
        "active_thread": "w (42/42)", "view": "left-heavy",
        "frames": [{"depth": 0, "name": "main", "x0": 0.0, "x1": 1.0,
                    "tooltip": "1.00µs (100%) main", "weight": "1.00µs",
                    "percent_text": "100%", "percent": 100.0}, ...],
        "chart": {"width_px": 1280, "step_px": 6, "checked_with_mouse": 3}}
     x0/x1 are fractions of the flame chart's width (accurate to a pixel);
     "percent" is the number shown, so "<0.01%" gives 0.01 (see
     "percent_text").  profile_name is the name in the page title;
     thread_names are the profiles listed in speedscope's profile selector
     (just the one shown when the file has a single profile).  For
     --view sandwich, "frames" is empty and "table" lists the rows.

Exit status 0 on success; on any failure a message naming the failed step is
written to stderr and the exit status is 1.

DIR (the speedscope npm package root, containing dist/release) defaults to
$PERFEV_SPEEDSCOPE or /var/cache/perfev/speedscope-1.25.0; scripts/
fetch_speedscope.sh installs it there.  Chromium's own output goes to a log
in a temporary directory that is removed at exit; Chromium is killed on
exit, on failure, on SIGTERM/SIGINT and when --timeout (default 90 s) runs out.

Speedscope version specifics (checked against speedscope 1.25.0): the flame
chart draws rows 20 CSS pixels high below one 20-pixel row of time labels; the
tooltip is the only absolutely positioned div with pointer-events: none and
inline left/top, and Preact re-renders it in a microtask after the mousemove
handler; the view tabs are the three toolbar entries "Time Order", "Left
Heavy", "Sandwich", the active one having a class of its own; the profile
selector is a table in the middle of the toolbar; the sandwich table is a
virtualised list (a div as tall as all rows holding only the visible ones).
"""

import argparse
import base64
import fcntl
import json
import os
import pathlib
import re
import select
import shutil
import signal
import sys
import tempfile
import time
import urllib.parse

DEFAULT_SPEEDSCOPE = "/var/cache/perfev/speedscope-1.25.0"
DEFAULT_CHROMIUM = "/usr/bin/chromium"

VIEWS = {  # --view value -> (toolbar tab label, keyboard shortcut)
    "time-order": ("Time Order", "1"),
    "left-heavy": ("Left Heavy", "2"),
    "sandwich": ("Sandwich", "3"),
}

ROW_PX = 20          # speedscope's LOGICAL_VIEW_SPACE_FRAME_HEIGHT
HEADER_ROWS = 1      # the time-label row above the root row
SCAN_FRACTION = 200  # coarse scan step = 1/200 of the chart width (0.5 %)
VERIFY_FRAMES = 10   # frames re-checked by moving the real mouse over them


class Failure(Exception):
    """An error with a message meant for the user."""


# JavaScript helpers installed in the page once speedscope has loaded.
PAGE_HELPERS = r"""
(() => {
  const svw = window.__svw = {x: null, y: null};
  // Where the last real (trusted) mouse move went.
  window.addEventListener('mousemove', e => {
    if (e.isTrusted) { svw.x = e.clientX; svw.y = e.clientY; }
  }, true);

  // The three view tabs of the toolbar, by label.
  svw.tabs = () => {
    const tabs = {};
    for (const el of document.querySelectorAll('div')) {
      const own = [...el.childNodes].filter(n => n.nodeType === 3).map(n => n.textContent).join('');
      if (['Time Order', 'Left Heavy', 'Sandwich'].includes(own) && !(own in tabs)) tabs[own] = el;
    }
    return tabs;
  };
  // 'error' when speedscope shows its error page, 'ready' once the toolbar
  // and the flame chart are there, null while still loading.
  svw.loadState = () => {
    if (document.body.innerText.includes('Something went wrong.')) return 'error';
    return svw.activeTab() && svw.chart() ? 'ready' : null;
  };
  // Label of the active tab: the one whose class differs from the other two.
  svw.activeTab = () => {
    const tabs = Object.entries(svw.tabs());
    if (tabs.length !== 3) return null;
    for (const [label, el] of tabs) {
      if (tabs.filter(([, o]) => o.className === el.className).length === 1) return label;
    }
    return null;
  };
  // The flame chart's interactive canvas: the lowest canvas on the page,
  // below the minimap, not counting the full-page WebGL canvas (which has no
  // class).
  svw.chart = () => {
    let best = null;
    for (const c of document.querySelectorAll('canvas')) {
      if (!c.className) continue;
      const r = c.getBoundingClientRect();
      if (r.width > 0 && r.height > 0 && (!best || r.top > best.top))
        best = {left: r.left, top: r.top, width: r.width, height: r.height};
    }
    return best;
  };
  svw.tooltip = () => {
    for (const d of document.querySelectorAll('div')) {
      if (!d.style.left || !d.style.top) continue;
      const s = getComputedStyle(d);
      if (s.position === 'absolute' && s.pointerEvents === 'none') return d;
    }
    return null;
  };
  // What the tooltip currently says: null when there is none.
  svw.read = () => {
    const t = svw.tooltip();
    if (!t) return null;
    const row = t.firstElementChild || t;
    let count = '', name = '', file = '';
    for (const n of row.childNodes) {
      if (n.nodeType === 3) name += n.textContent;
      else if (n.tagName === 'SPAN' && !count) count = n.textContent;
      else if (n.tagName === 'DIV') file += n.textContent;
    }
    return {tooltip: t.innerText.trim(), count: count, name: name.replace(/^ /, ''), file: file};
  };
  // After a real mouse move to (x, y): 'pending' until the page has seen it.
  svw.probe = (x, y) => (svw.x !== x || svw.y !== y) ? 'pending' : svw.read();
  // Hover pixel (x, y) of the page by dispatching a mousemove event to the
  // element there, then read the tooltip.  The app handles the event
  // synchronously and Preact re-renders in a microtask queued by the handler,
  // so awaiting a few microtasks is enough.  (ChartScanner.verify checks the
  // result against real mouse moves.)
  svw.hover = async (x, y) => {
    const target = document.elementFromPoint(x, y);
    if (!target) return null;
    target.dispatchEvent(new MouseEvent('mousemove', {
      bubbles: true, cancelable: true, view: window, clientX: x, clientY: y}));
    for (let i = 0; i < 4; i++) await null;
    return svw.read();
  };
  // Is a run of pixels wider than the percentage its tooltip shows?  Then it
  // is really several frames with the same tooltip (same name and weight)
  // with gaps narrower than the scan step between them.
  const tooWide = (first, last, tip, width) => {
    const m = /\(([0-9.]+)%\)$/.exec(tip.count);
    if (!m) return false;
    const decimals = (m[1].split('.')[1] || '').length;
    const percent = parseFloat(m[1]) + 0.5 * Math.pow(10, -decimals);
    return last - first + 1 > percent / 100 * width + 2;
  };
  // The frames of one flame chart row at page height y, looking only inside
  // the given [first, last] pixel spans (relative to the chart's left edge).
  // Hovers every `step` pixels, bisects between differing neighbours down to
  // the pixel, and returns the runs of equal tooltips as [first, last, tip].
  svw.scanRow = async (left, y, width, spans, step) => {
    const frames = [];
    for (const [first, last] of spans) {
      const samples = new Map();
      const key = async px => {
        if (!samples.has(px)) samples.set(px, await svw.hover(left + px, y));
        const tip = samples.get(px);
        return tip && tip.tooltip;
      };
      const bisect = async (lo, hi) => {  // key(lo) != key(hi)
        while (hi - lo > 1) {
          const mid = Math.floor((lo + hi) / 2), k = await key(mid);
          if (k === await key(lo)) lo = mid;
          else if (k === await key(hi)) hi = mid;
          else { await bisect(lo, mid); lo = mid; }
        }
      };
      const runs = () => {
        const out = [];
        let run = null;
        for (const px of [...samples.keys()].sort((p, q) => p - q)) {
          const tip = samples.get(px);
          if (run && tip && tip.tooltip === run[2].tooltip) { run[1] = px; continue; }
          if (run) out.push(run);
          run = tip ? [px, px, tip] : null;
        }
        if (run) out.push(run);
        return out;
      };
      const coarse = [];
      for (let px = first; px <= last; px += step) coarse.push(px);
      if (coarse[coarse.length - 1] !== last) coarse.push(last);
      for (let i = 0; i < coarse.length; i++) {
        if (i > 0 && await key(coarse[i - 1]) !== await key(coarse[i])) await bisect(coarse[i - 1], coarse[i]);
        await key(coarse[i]);
      }
      // Look at every pixel of runs that are too wide for their tooltip.
      for (const [a, b, tip] of runs()) {
        if (tooWide(a, b, tip, width)) for (let px = a; px <= b; px++) await key(px);
      }
      frames.push(...runs());
    }
    return frames;
  };
  // Scan rows from `depth` down, each row only inside the frames of the row
  // above, until a row is empty or lies below the bottom of the chart.
  // Returns the rows found and the spans still to scan at the next depth.
  svw.scanRows = async (depth, spans, step, rowPx, headerRows) => {
    const chart = svw.chart(), rows = [];
    const left = Math.round(chart.left);
    while (spans.length && (depth + headerRows + 1) * rowPx <= chart.height) {
      const y = Math.round(chart.top) + (depth + headerRows) * rowPx + Math.floor(rowPx / 2);
      const row = await svw.scanRow(left, y, chart.width, spans, step);
      rows.push(row);
      spans = row.map(([first, last]) => [first, last]);
      depth++;
    }
    return {rows: rows, depth: depth, spans: spans};
  };
  svw.profileInfo = () => {
    const tabs = Object.values(svw.tabs());
    const bar = tabs.length ? tabs[0].parentElement.parentElement : null;
    let active = null, names = [];
    if (bar) {
      // Toolbar: [tabs] [centre: profile name, maybe a profile selector] [buttons]
      const centre = [...bar.childNodes][1];
      if (centre) {
        const rows = centre.nodeType === 1 ? centre.querySelectorAll('tbody tr') : [];
        names = [...rows].map(r => r.getAttribute('title') || r.cells[1].textContent);
        const label = centre.nodeType === 1 ? centre.querySelector('span') : null;
        if (label) {
          active = [...label.childNodes].filter(n => n.nodeType === 3).map(n => n.textContent).join('').trim();
        } else {
          active = centre.textContent.trim();
        }
        if (!names.length && active) names = [active];
      }
    }
    return {title: document.title, active: active, names: names};
  };
  // Sandwich table rows currently rendered, with their index in the list.
  svw.sandwichRows = () => {
    const out = {rows: [], total: null};
    const head = [...document.querySelectorAll('th')].find(th => th.textContent === 'Symbol Name');
    if (!head) return out;
    const sizer = svw.sandwichSizer(head);
    if (!sizer) return out;
    const trs = [...sizer.querySelectorAll('tr')];
    if (!trs.length) { out.total = 0; return out; }
    const rowH = trs[0].getBoundingClientRect().height;
    const top0 = sizer.getBoundingClientRect().top;
    out.total = Math.round(sizer.offsetHeight / rowH);
    for (const tr of trs) {
      const cells = [...tr.cells].map(td => [...td.childNodes].filter(n => n.nodeType === 3)
                                         .map(n => n.textContent).join(''));
      out.rows.push({index: Math.round((tr.getBoundingClientRect().top - top0) / rowH),
                     total: cells[0], self: cells[1], name: cells[2]});
    }
    return out;
  };
  // The virtualised list: a div as tall as all rows, inside a scrolling div.
  svw.sandwichSizer = (head) =>
    [...head.closest('div').querySelectorAll('div')].find(d => d.style.height && d.querySelector('tr'));
  svw.scrollSandwich = (index) => {
    const head = [...document.querySelectorAll('th')].find(th => th.textContent === 'Symbol Name');
    const sizer = svw.sandwichSizer(head);
    const tr = sizer.querySelector('tr');
    sizer.parentElement.scrollTop = index * tr.getBoundingClientRect().height;
    return sizer.parentElement.scrollTop;
  };
  return true;
})()
"""


class Chromium:
    """A headless Chromium driven over --remote-debugging-pipe."""

    def __init__(self, path, tmpdir, deadline):
        self.deadline = deadline
        self.step = "starting chromium"
        self.next_id = 0
        self.buffer = b""
        self.session = None
        self.dialog = None
        self.replies = {}
        self.console = []
        self.log_path = os.path.join(tmpdir, "chromium.log")

        # Pipes for the DevTools protocol, moved to fds >= 10 so that placing
        # them on fds 3 and 4 of the child cannot clobber one another.
        to_chrome_r, to_chrome_w = self._high_pipe()
        from_chrome_r, from_chrome_w = self._high_pipe()
        log_fd = os.open(self.log_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        args = [
            path,
            "--headless=new",
            "--no-sandbox",
            "--disable-gpu",
            "--enable-unsafe-swiftshader",  # software WebGL, which speedscope needs
            "--disable-dev-shm-usage",
            "--disable-breakpad",
            "--disable-crash-reporter",
            "--disable-extensions",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-default-apps",
            "--disable-sync",
            "--no-first-run",
            "--no-default-browser-check",
            "--hide-scrollbars",
            "--mute-audio",
            "--remote-debugging-pipe",
            "--user-data-dir=" + os.path.join(tmpdir, "user-data"),
            "about:blank",
        ]
        try:
            self.pid = os.posix_spawn(path, args, os.environ, file_actions=[
                (os.POSIX_SPAWN_DUP2, to_chrome_r, 3),
                (os.POSIX_SPAWN_DUP2, from_chrome_w, 4),
                (os.POSIX_SPAWN_DUP2, log_fd, 1),
                (os.POSIX_SPAWN_DUP2, log_fd, 2),
            ], setpgroup=0)
        except OSError as e:
            raise Failure(f"cannot start chromium {path}: {e}")
        finally:
            for fd in (to_chrome_r, from_chrome_w, log_fd):
                os.close(fd)
        self.write_fd = to_chrome_w
        self.read_fd = from_chrome_r

    @staticmethod
    def _high_pipe():
        fds = []
        for fd in os.pipe():
            fds.append(fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10))
            os.close(fd)
        return fds

    def log_tail(self, lines=15):
        try:
            with open(self.log_path, errors="replace") as f:
                return "".join(f.readlines()[-lines:])
        except OSError:
            return ""

    def close(self):
        """Ask Chromium to quit, then kill whatever is left of its process group."""
        try:
            os.write(self.write_fd, b'{"id": 0, "method": "Browser.close"}\0')
            grace = time.monotonic() + 3
            while time.monotonic() < grace and os.waitpid(self.pid, os.WNOHANG) == (0, 0):
                time.sleep(0.05)
        except OSError:
            pass
        for fd in (self.write_fd, self.read_fd):
            try:
                os.close(fd)
            except OSError:
                pass
        try:
            os.killpg(self.pid, signal.SIGKILL)
        except OSError:
            pass
        try:
            os.waitpid(self.pid, 0)
        except OSError:
            pass

    def _time_left(self):
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise Failure(f"timed out while {self.step}")
        return left

    def _next_message(self):
        """Return the next message from Chromium, waiting up to the deadline."""
        while b"\0" not in self.buffer:
            ready, _, _ = select.select([self.read_fd], [], [], self._time_left())
            if not ready:
                continue
            chunk = os.read(self.read_fd, 1 << 20)
            if not chunk:
                raise Failure(f"chromium exited while {self.step}\n{self.log_tail()}")
            self.buffer += chunk
        raw, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(raw)

    def call(self, method, params=None, session=True):
        """Send one DevTools command and return its result."""
        self.next_id += 1
        my_id = self.next_id
        message = {"id": my_id, "method": method, "params": params or {}}
        if session and self.session:
            message["sessionId"] = self.session
        data = json.dumps(message).encode() + b"\0"
        while data:
            self._time_left()
            try:
                data = data[os.write(self.write_fd, data):]
            except BrokenPipeError:
                raise Failure(f"chromium exited while {self.step}\n{self.log_tail()}")
        # Replies to other (nested) calls are kept for those calls.
        while my_id not in self.replies:
            message = self._next_message()
            if "id" in message:
                self.replies[message["id"]] = message
            else:
                self._event(message)
        reply = self.replies.pop(my_id)
        if "error" in reply:
            raise Failure(f"{method} failed while {self.step}: {reply['error'].get('message')}")
        return reply.get("result", {})

    def _event(self, event):
        method, params = event.get("method"), event.get("params", {})
        if method == "Page.javascriptDialogOpening":
            # speedscope reports import errors with alert(); the page is
            # blocked until the dialog is dismissed.
            self.dialog = params.get("message", "")
            self.call("Page.handleJavaScriptDialog", {"accept": True})
        elif method == "Runtime.consoleAPICalled":
            text = " ".join(str(a.get("value", a.get("description", ""))) for a in params.get("args", []))
            self.console = (self.console + [f"console.{params.get('type')}: {text}"])[-5:]
        elif method == "Runtime.exceptionThrown":
            details = params.get("exceptionDetails", {})
            text = details.get("exception", {}).get("description") or details.get("text", "")
            self.console = (self.console + [f"uncaught: {text}"])[-5:]

    def attach_to_page(self):
        self.step = "attaching to the page"
        targets = self.call("Target.getTargets", session=False)["targetInfos"]
        pages = [t for t in targets if t.get("type") == "page"]
        if not pages:
            raise Failure("chromium has no page to attach to")
        result = self.call("Target.attachToTarget",
                           {"targetId": pages[0]["targetId"], "flatten": True}, session=False)
        self.session = result["sessionId"]

    def evaluate(self, expression, await_promise=False):
        result = self.call("Runtime.evaluate", {
            "expression": expression,
            "returnByValue": True,
            "awaitPromise": await_promise,
        })
        if "exceptionDetails" in result:
            details = result["exceptionDetails"]
            text = details.get("exception", {}).get("description") or details.get("text")
            raise Failure(f"JavaScript error while {self.step}: {text}")
        return result.get("result", {}).get("value")

    def wait_for(self, expression, what):
        """Evaluate expression until it returns something truthy."""
        self.step = "waiting for " + what
        pause = 0.01
        while True:
            if self.dialog is not None:
                raise Failure(f"speedscope showed an alert while {self.step}: {self.dialog}")
            value = self.evaluate(expression)
            if value:
                return value
            time.sleep(min(pause, max(0.0, self.deadline - time.monotonic())))
            pause = min(pause * 2, 0.2)

    def next_frames(self, count=2):
        """Let the page render a couple of animation frames."""
        self.evaluate("new Promise(done => { let n = %d; const tick = () => --n > 0 ? "
                      "requestAnimationFrame(tick) : setTimeout(done, 0); "
                      "requestAnimationFrame(tick); })" % (count + 1), await_promise=True)

    def mouse_move(self, x, y):
        self.call("Input.dispatchMouseEvent", {"type": "mouseMoved", "x": x, "y": y})

    def key(self, text):
        self.call("Input.dispatchKeyEvent", {"type": "keyDown", "key": text, "text": text})
        self.call("Input.dispatchKeyEvent", {"type": "keyUp", "key": text})


def load_profile(browser, speedscope_dir, profile, tmpdir, width, height):
    """Open the profile in speedscope and wait for the flame chart."""
    loader = os.path.join(tmpdir, "load-profile.js")
    with open(profile, "rb") as f:
        data = base64.b64encode(f.read()).decode("ascii")
    with open(loader, "w") as f:
        f.write("speedscope.loadFileFromBase64(%s, %s)"
                % (json.dumps(os.path.basename(profile)), json.dumps(data)))
    index = pathlib.Path(speedscope_dir, "dist", "release", "index.html").resolve()
    url = index.as_uri() + "#localProfilePath=" + urllib.parse.quote(loader, safe="/")

    browser.attach_to_page()
    browser.step = "setting up the page"
    browser.call("Page.enable")
    browser.call("Runtime.enable")
    browser.call("Emulation.setDeviceMetricsOverride", {
        "width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})
    browser.step = "opening " + url
    result = browser.call("Page.navigate", {"url": url})
    if result.get("errorText"):
        raise Failure(f"cannot open {url}: {result['errorText']}")
    browser.wait_for("location.protocol === 'file:' && document.readyState === 'complete' "
                     "&& document.querySelectorAll('canvas').length > 0",
                     "speedscope to start")
    browser.evaluate(PAGE_HELPERS)
    try:
        state = browser.wait_for("__svw.loadState()", "speedscope to show the profile")
    except Failure as e:
        raise Failure(f"{e}{page_details(browser)}")
    if state == "error":
        raise Failure(f"speedscope could not load {profile}{page_details(browser)}")
    browser.step = "waiting for the page's fonts"
    browser.evaluate("document.fonts.ready.then(() => true)", await_promise=True)


def page_details(browser):
    """What the page shows and logged, for error messages."""
    details = ""
    try:
        text = browser.evaluate("document.body ? document.body.innerText.slice(0, 300) : ''")
        details += f"\npage shows: {text!r}"
    except Failure:
        pass
    for line in browser.console:
        details += "\n" + line
    return details


def switch_view(browser, view):
    label, shortcut = VIEWS[view]
    browser.step = "switching to " + label
    if browser.evaluate("__svw.activeTab()") != label:
        browser.key(shortcut)
    browser.wait_for("__svw.activeTab() === %s" % json.dumps(label), f"the {label} tab to become active")
    if view == "sandwich":
        browser.wait_for("__svw.sandwichRows().total !== null", "the sandwich table")
    else:
        browser.wait_for("__svw.chart()", "the flame chart")
    browser.next_frames()


def screenshot(browser, path):
    browser.step = "taking a screenshot"
    browser.next_frames()
    data = browser.call("Page.captureScreenshot", {"format": "png"})["data"]
    try:
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))
    except OSError as e:
        raise Failure(f"cannot write screenshot {path}: {e}")


def parse_count(count):
    """Split speedscope's "<weight> (<percent>%)" tooltip text."""
    m = re.fullmatch(r"(.*) \(([<>]?)([0-9.]+)%\)", count.strip())
    if not m:
        return {}
    return {"weight": m.group(1), "percent_text": m.group(2) + m.group(3) + "%",
            "percent": float(m.group(3))}


class ChartScanner:
    """Reads the frames of the flame chart by hovering over it."""

    def __init__(self, browser):
        self.browser = browser
        self.chart = browser.evaluate("__svw.chart()")
        self.width = int(self.chart["width"])
        self.step = max(1, self.width // SCAN_FRACTION)

    def row_y(self, depth):
        """Page y coordinate of the middle of flame chart row depth."""
        return round(self.chart["top"]) + (depth + HEADER_ROWS) * ROW_PX + ROW_PX // 2

    def real_probe(self, px, depth):
        """Tooltip (a dict, or None) after moving the real mouse to pixel px of row depth."""
        x, y = round(self.chart["left"]) + px, self.row_y(depth)
        self.browser.mouse_move(x, y)
        hit = self.browser.wait_for(
            "(r => r === 'pending' ? null : r || 'none')(__svw.probe(%d, %d))" % (x, y),
            f"the tooltip at x={x} y={y}")
        return None if hit == "none" else hit

    def grow_page(self, depth):
        """Make the page taller so that flame chart row depth (and 20 more) fit."""
        self.browser.step = f"making room for flame chart row {depth}"
        needed = (depth + HEADER_ROWS + 1) * ROW_PX
        grow = needed - self.chart["height"] + 20 * ROW_PX
        metrics = self.browser.call("Page.getLayoutMetrics")["cssLayoutViewport"]
        self.browser.call("Emulation.setDeviceMetricsOverride", {
            "width": metrics["clientWidth"], "height": int(metrics["clientHeight"] + grow),
            "deviceScaleFactor": 1, "mobile": False})
        self.chart = self.browser.wait_for(
            "(c => c && c.height >= %d ? c : null)(__svw.chart())" % needed,
            "the flame chart to grow")
        self.browser.next_frames()

    def scan(self):
        """All frames of the chart, row by row from the root row down."""
        result = []
        found = []  # (depth, first px, last px, tooltip text) of each frame
        depth, spans = 0, [[0, self.width - 1]]
        calls = 0
        while spans:
            if calls:  # the last call stopped at the bottom of the chart
                self.grow_page(depth)
            calls += 1
            self.browser.step = f"reading the flame chart from row {depth}"
            scanned = self.browser.evaluate("__svw.scanRows(%d, %s, %d, %d, %d)" % (
                depth, json.dumps(spans), self.step, ROW_PX, HEADER_ROWS), await_promise=True)
            for row in scanned["rows"]:
                for first, last, tip in row:
                    frame = {
                        "depth": depth,
                        "name": tip["name"],
                        "x0": round(first / self.width, 4),
                        "x1": round(min(last + 1, self.width) / self.width, 4),
                        "tooltip": tip["tooltip"],
                    }
                    frame.update(parse_count(tip["count"]))
                    if tip["file"]:
                        frame["file"] = tip["file"]
                    result.append(frame)
                    found.append((depth, first, last, tip["tooltip"]))
                depth += 1
            spans = scanned["spans"]
        if not result:
            raise Failure("found no frames in the flame chart (no tooltip anywhere on the root row)")
        self.verified = self.verify(found)
        return result

    def verify(self, found):
        """Hover the widest frames with the real mouse; the tooltips must agree."""
        widest = sorted(found, key=lambda f: f[1] - f[2])[:VERIFY_FRAMES]
        for depth, first, last, tooltip in widest:
            self.browser.step = f"checking frame {tooltip!r} with the mouse"
            hit = self.real_probe((first + last) // 2, depth)
            seen = hit and hit["tooltip"]
            if seen != tooltip:
                raise Failure(f"hovering the middle of frame {tooltip!r} (row {depth}) with the "
                              f"mouse shows tooltip {seen!r} instead")
        return len(widest)


def read_sandwich(browser):
    """All rows of the sandwich table, scrolling through the list."""
    browser.step = "reading the sandwich table"
    rows = {}
    total = None
    while total is None or len(rows) < total:
        missing = next(i for i in range(total or 1) if i not in rows) if total else 0
        browser.evaluate("__svw.scrollSandwich(%d)" % missing)
        got = browser.wait_for(
            "(r => r.rows.some(row => row.index === %d) || r.total === 0 ? r : null)"
            "(__svw.sandwichRows())" % missing, f"sandwich table row {missing}")
        total = got["total"]
        for row in got["rows"]:
            rows[row.pop("index")] = row
    browser.evaluate("__svw.scrollSandwich(0)")
    table = []
    for i in range(total):
        row = rows[i]
        entry = {"name": row["name"], "total": row["total"], "self": row["self"]}
        for column in ("total", "self"):
            parsed = parse_count(row[column])
            if parsed:
                entry[column + "_weight"] = parsed["weight"]
                entry[column + "_percent"] = parsed["percent"]
        table.append(entry)
    return table


def main():
    parser = argparse.ArgumentParser(
        description="Open a speedscope profile in the speedscope web app (headless "
                    "Chromium) and print what it renders as JSON.")
    parser.add_argument("profile", metavar="PROFILE.json")
    parser.add_argument("--speedscope", metavar="DIR",
                        default=os.environ.get("PERFEV_SPEEDSCOPE") or DEFAULT_SPEEDSCOPE,
                        help="speedscope package root, containing dist/release "
                             "(default: $PERFEV_SPEEDSCOPE or %(default)s)")
    parser.add_argument("--chromium", metavar="PATH", default=DEFAULT_CHROMIUM)
    parser.add_argument("--view", choices=list(VIEWS), default="left-heavy")
    parser.add_argument("--screenshot", metavar="PNG")
    parser.add_argument("--width", type=int, default=1280)
    parser.add_argument("--height", type=int, default=800)
    parser.add_argument("--timeout", type=float, default=90, metavar="S",
                        help="overall time limit in seconds (default %(default)s)")
    args = parser.parse_args()

    deadline = time.monotonic() + args.timeout
    index = os.path.join(args.speedscope, "dist", "release", "index.html")
    if not os.path.isfile(index):
        raise Failure(f"speedscope not found: {index} does not exist "
                      "(install it with scripts/fetch_speedscope.sh or use --speedscope DIR)")
    if not os.access(args.profile, os.R_OK):
        raise Failure(f"cannot read profile {args.profile}")
    chromium = args.chromium
    if not os.access(chromium, os.X_OK):
        raise Failure(f"chromium not found or not executable: {chromium}")
    if args.width < 200 or args.height < 200:
        raise Failure("--width and --height must be at least 200")

    tmpdir = tempfile.mkdtemp(prefix="speedscope-view-")
    browser = None
    try:
        browser = Chromium(chromium, tmpdir, deadline)
        load_profile(browser, args.speedscope, os.path.abspath(args.profile), tmpdir,
                     args.width, args.height)
        switch_view(browser, args.view)
        if args.screenshot:
            screenshot(browser, args.screenshot)
        info = browser.evaluate("__svw.profileInfo()")
        title = info["title"]
        if title.endswith(" - speedscope"):
            title = title[:-len(" - speedscope")]
        report = {
            "profile_name": title,
            "thread_names": info["names"],
            "active_thread": info["active"],
            "view": args.view,
        }
        if args.view == "sandwich":
            report["frames"] = []
            report["table"] = read_sandwich(browser)
        else:
            scanner = ChartScanner(browser)
            report["frames"] = scanner.scan()
            report["chart"] = {"width_px": scanner.width, "step_px": scanner.step,
                               "checked_with_mouse": scanner.verified}
        if browser.dialog is not None:
            raise Failure(f"speedscope showed an alert: {browser.dialog}")
    finally:
        if browser:
            browser.close()
        shutil.rmtree(tmpdir, ignore_errors=True)
    json.dump(report, sys.stdout, indent=1, ensure_ascii=False)
    sys.stdout.write("\n")


def on_signal(signum, _frame):
    raise Failure(f"interrupted by signal {signum}")


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    try:
        main()
    except Failure as e:
        print(f"speedscope_view: {e}", file=sys.stderr)
        sys.exit(1)
    except BrokenPipeError:
        sys.exit(1)
