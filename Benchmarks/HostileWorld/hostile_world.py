#!/usr/bin/env python3
"""The hostile world: a real podsd against a loopback web that lies.

A server (this process, loopback only) serves, from a seed, feeds made by
mutating real feeds (../shared/testdata, data/) at the XML and the text
level, enclosures made from real audio of five formats with their size
fields set to boundary values, truncated or chained, chapters JSON,
transcripts in four formats, artwork, and HTTP that misbehaves (slow,
reset, a wrong Content-Range, a Content-Length of 10 GB, redirect loops,
a gzip bomb). A real podsd (on the bus this runs in: start it under
dbus-run-session, as scripts/hostile-world does) subscribes to the feeds
and refreshes them, and a driver takes every path a client has: pods show
(text, --json, --transcript), pods chapters, the artwork method, play,
seek, next, and pods ui in tmux stepping through the episodes' pages.

Nothing may crash or hang: every command must end within its limit and
not by a signal, podsd must stay up, and its RSS must stay bounded. Every
crash leaves its seed and the inputs that led to it in the output folder,
to become a fixture. The last line is the plain verdict
("hostile world: N passed, N failed").
"""
import argparse, gzip, hashlib, http.server, io, json, os, random, re, shutil, signal, socketserver, struct
import subprocess, sys, tempfile, threading, time, zlib
import synced_pair

AWKWARD = ["\u0130" * 40, "\u212a" * 30, "\u1e9e", "\ufb01", "\u03a3\u0391\u03a3 \u03c2", "e\u0301\u0302\u0303",
           "\u202e\u05e9\u05dc\u05d5\u05dd\u202c \u0645\u0631\u062d\u0628\u0627", "\U0001F469\u200d\U0001F469\u200d\U0001F467\U0001F3F3\ufe0f\u200d\U0001F308",
           "&#xD800;&#xDFFF;&#55296;", "&#0;", "\x1b[2J\x1b]0;title\x07", "\u200f\u2066", "A" * 70000, "",
           # terminal controls of every kind: OSC 52 (the clipboard), DCS, 8-bit CSI and OSC, bidi overrides
           "a\x1b]52;c;ZWNobyBwd25lZA==\x07b\x1bP1$q\x1b\\c\u009b31m\u009d0;t\u009cd\u202ee\u2066f\u0085g",
           # notes whose tags never close, unterminated comments and references (REVIEW-4, N4: N^2 per tag)
           "<a " * 20000, "<a href=" * 10000, "<!--" * 10000, "&#" * 20000, "<p" * 20000]
# Shows whose feeds repeat one another's podcast:guid and title (REVIEW-4, N2): a subscription is its URL.
SHARED_GUIDS = ["5d0a8d59-0f7e-5e4a-a0c1-3b5c1d2e7f60", "917393e3-1b1e-5cef-ace4-edaa54e1f810"]
SECONDS = ["99999999999999999999999", "1e23", "1e308", "inf", "NaN", "-1", "9223372036854775808", "18446744073709551616",
           "1:2:3:4", "::", "00:00:00", "59:59", "0.5", "  ", "4294967296", "-0", "1e-300", "99999999999:99:99"]
BOUNDARY64 = [0, 1, 7, 8, 15, 16, 0xFFFFFFFF, (1 << 63) - 9, (1 << 63) - 8, (1 << 63) - 1, 1 << 63, (1 << 64) - 1]
FORMATS = ["mp3", "m4a", "ogg", "opus", "flac"]


class World:
    """Everything the server serves, from one seed."""

    def __init__(self, seed, work, feeds, testdata):
        self.seed = seed
        self.work = work
        self.audio = {}
        self.art = {}
        self.real_feeds = []
        self.bytes_served = 0
        self.requests = 0
        self.lock = threading.Lock()
        self.feed_count = feeds
        self.moved = set()  # the synced shows that have moved (synced_pair)
        for root in [testdata, "data"]:
            for base, _, files in os.walk(root):
                for name in sorted(files):
                    if name.endswith(".xml") and os.path.getsize(os.path.join(base, name)) < 400_000:
                        self.real_feeds.append(os.path.join(base, name))
        if not self.real_feeds:
            raise SystemExit("hostile world: no real feeds found (../shared/testdata, data/)")
        self.make_audio()
        self.make_art()
        path = os.path.join(work, "minute.mp3")  # the synced shows' episodes: a minute, to pause in the middle of
        subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "sine=frequency=220:duration=60", "-ac", "1", "-ar", "16000",
                        "-b:a", "16k", path], check=True)
        with open(path, "rb") as f:
            self.minute = f.read()

    def make_audio(self):
        meta = os.path.join(self.work, "chapters.txt")
        with open(meta, "w") as f:
            f.write(";FFMETADATA1\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=0\nEND=1000\ntitle=Intro \u0130\u212a\n"
                    "[CHAPTER]\nTIMEBASE=1/1000\nSTART=1000\nEND=3000\ntitle=Two\n")
        for fmt in FORMATS:
            path = os.path.join(self.work, "tone." + fmt)
            extra = ["-ar", "48000"] if fmt == "opus" else ["-ar", "16000"]
            subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "sine=frequency=330:duration=3", "-i", meta,
                            "-map_metadata", "1", "-map_chapters", "1", "-ac", "1"] + extra + [path], check=True)
            with open(path, "rb") as f:
                self.audio[fmt] = f.read()

    def make_art(self):
        for fmt in ["png", "jpg", "webp"]:
            path = os.path.join(self.work, "art." + fmt)
            subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "color=c=red:s=200x100", "-frames:v", "1", path], check=True)
            with open(path, "rb") as f:
                self.art[fmt] = f.read()
        # A PNG that declares 100000 × 100000 pixels, a playlist dressed as art, and nothing.
        png = self.art["png"]
        self.art["huge.png"] = png[:16] + struct.pack(">II", 100000, 100000) + png[24:]
        self.art["playlist.png"] = b"#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\nhttp://127.0.0.1:1/x.m3u8\n"
        self.art["empty.png"] = b""

    def rng(self, *parts):
        return random.Random(hashlib.sha256(repr((self.seed,) + parts).encode()).digest())

    # -- feeds ---------------------------------------------------------------------------------

    def feed(self, n, base):
        r = self.rng("feed", n)
        with open(r.choice(self.real_feeds), "rb") as f:
            text = f.read().decode("utf-8", "replace")
        counter = [0]

        def item_extra(match):
            counter[0] += 1
            i = counter[0]
            k = r.randrange(1 << 30)
            fmt = r.choice(FORMATS)
            extra = (f'<enclosure url="{base}/media/{n}/{k}.{fmt}" type="audio/{fmt}" length="{r.choice(BOUNDARY64)}"/>'
                     f'<itunes:duration>{r.choice(SECONDS)}</itunes:duration>'
                     f'<podcast:chapters url="{base}/chapters/{n}/{k}.json" type="application/json+chapters"/>'
                     f'<podcast:transcript url="{base}/transcript/{n}/{k}.{r.choice(["srt", "vtt", "json", "html"])}" type="text/plain"/>'
                     f'<itunes:image href="{base}/art/{n}/{k}.{r.choice(list(self.art))}"/>'
                     f'<psc:chapters version="1.2"><psc:chapter start="{r.choice(SECONDS)}" title="{xml_escape(r.choice(AWKWARD)[:200])}"/>'
                     f'<psc:chapter start="0" title="a"/></psc:chapters>'
                     f'<description><![CDATA[<p>{r.choice(AWKWARD)[:2000]} <a href="http://127.0.0.1:1/{i}">link {r.choice(AWKWARD)[:50]}</a>'
                     f'{r.choice(AWKWARD)[:2000]}<a href=\'file:///etc/passwd\'>x</a></p>]]></description>')
            return match.group(0) + extra

        # Nothing the real feed names is fetched (this web is loopback only): its addresses go to this
        # server's 404, its enclosures go, and every item names this server's files.
        text = re.sub(r'(https?|ftp|feed|itpc)://[^\s"<>\']+', base + "/gone", text)
        text = re.sub(r'<enclosure[^>]*>', "", text)
        text = re.sub(r'<item(\s[^>]*)?>', item_extra, text, count=60)
        text = re.sub(r'<channel>', '<channel><itunes:image href="%s/art/%d/channel.%s"/>' % (base, n, r.choice(list(self.art))), text, count=1)
        if r.random() < 0.4:  # another feed's guid and title
            text = re.sub(r'<channel>', '<channel><podcast:guid>%s</podcast:guid><title>Copied Show</title>' % r.choice(SHARED_GUIDS),
                          text, count=1)
        # Namespaces the additions use, declared on the root (a feed may already declare them).
        text = re.sub(r'<rss\b', '<rss xmlns:podcast="https://podcastindex.org/namespace/1.0" '
                      'xmlns:psc="http://podlove.org/simple-chapters" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd"',
                      text, count=1)
        data = text.encode("utf-8")
        # XML-level: cut, duplicate or swap spans, put tags in the wrong place.
        for _ in range(r.choice([0, 0, 1, 2, 5])):
            if len(data) < 10:
                break
            a, b = sorted(r.randrange(len(data)) for _ in range(2))
            op = r.randrange(4)
            if op == 0:
                data = data[:a] + data[b:]
            elif op == 1:
                data = data[:b] + data[a:b] + data[b:]
            elif op == 2:
                data = data[:a]
            else:
                data = data[:a] + r.choice([b"<item>", b"</channel>", b"<![CDATA[", b"&#x110000;", b"\x00", b"\xff\xfe", b"<rss>"]) + data[a:]
        return data

    # -- media ---------------------------------------------------------------------------------

    def media(self, n, k, fmt):
        r = self.rng("media", n, k)
        data = bytearray(self.audio.get(fmt, self.audio["mp3"]))
        how = r.randrange(6)
        if how == 0:
            return bytes(data)
        if how == 1:
            return bytes(data[: r.randrange(1, len(data))])
        if how == 2:
            return bytes(data) + self.audio[r.choice(FORMATS)]
        # Size fields at boundary values, where the format keeps them.
        value = r.choice(BOUNDARY64)
        if fmt == "m4a":
            boxes = mp4_boxes(bytes(data))
            if boxes:
                offset, _ = r.choice(boxes)
                if r.random() < 0.5:
                    data[offset:offset + 4] = struct.pack(">I", value & 0xFFFFFFFF)
                else:
                    data[offset:offset + 4] = struct.pack(">I", 1)
                    data[offset + 8:offset + 8] = struct.pack(">Q", value)
        elif fmt == "mp3" and data[:3] == b"ID3":
            data[6:10] = bytes([(value >> s) & 0x7F for s in (21, 14, 7, 0)])
            at = data.find(b"CHAP")
            if at > 0:
                data[at + 4:at + 8] = struct.pack(">I", value & 0xFFFFFFFF)
        elif fmt == "flac":
            data[5:8] = struct.pack(">I", value & 0xFFFFFF)[1:]
        else:  # Ogg: a page's segment table
            at = r.randrange(0, max(1, len(data) - 30))
            at = data.find(b"OggS", at)
            if at >= 0:
                data[at + 26] = value & 0xFF
        return bytes(data)

    # -- documents -------------------------------------------------------------------------------

    def chapters(self, n, k):
        r = self.rng("chapters", n, k)
        entries = []
        for _ in range(r.choice([0, 1, 3, 50])):
            entries.append({"startTime": r.choice([0, 1.5, 1e23, 1e308, -1, "NaN", "1e23", 9223372036854775807, None]),
                            "endTime": r.choice([None, 2, 1e300, "x"]), "title": r.choice(AWKWARD)[:500],
                            "img": r.choice([None, "file:///etc/passwd", "https://127.0.0.1:1/x.png"]), "toc": r.choice([True, False, "yes"])})
        doc = json.dumps({"version": "1.2.0", "chapters": entries})
        return r.choice([doc, doc[: len(doc) // 2], "[" * 100000, '{"chapters": ' + "[" * 5000, "not json"]).encode()

    def transcript(self, n, k, fmt):
        r = self.rng("transcript", n, k)
        t = lambda: r.choice(["00:00:01,000", "99999999:00:00,000", "00:00:1e23", "-1:00:00,000", "00:00:00.5", "nan:nan"])
        text = r.choice(AWKWARD)[:3000]
        if fmt == "srt":
            body = "".join(f"{i}\n{t()} --> {t()}\n{text}\n\n" for i in range(r.choice([1, 5, 2000])))
        elif fmt == "vtt":
            body = "WEBVTT\n\n" + "".join(f"{t()} --> {t()}\n<v {text[:30]}>{text}\n\n" for _ in range(r.choice([1, 5, 2000])))
        elif fmt == "json":
            body = json.dumps({"version": "1.0.0", "segments": [
                {"startTime": r.choice([0, 1e23, -5, None]), "endTime": r.choice([1, 1e308]), "body": text, "speaker": text[:20]}
                for _ in range(r.choice([1, 10, 1000]))]})
        else:
            body = "<html><body>" + f"<cite>{text[:40]}:</cite><time>{t()}</time><p>{text}</p>" * r.choice([1, 50]) + "</body></html>"
        return body.encode("utf-8")


def mp4_boxes(data):
    boxes, at = [], 0
    while at + 8 <= len(data) and len(boxes) < 20:
        size = struct.unpack(">I", data[at:at + 4])[0]
        boxes.append((at, data[at + 4:at + 8]))
        if size < 8:
            break
        if data[at + 4:at + 8] == b"moov":
            at += 8  # into moov: its children too
            continue
        at += size
    return boxes


def xml_escape(text):
    return text.replace("&", "&amp;").replace("<", "&lt;").replace('"', "&quot;")


def gzip_bomb(megabytes):
    out = io.BytesIO()
    with gzip.GzipFile(fileobj=out, mode="wb", compresslevel=9) as g:
        block = b"\0" * (1 << 20)
        for _ in range(megabytes):
            g.write(block)
    return out.getvalue()


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    world = None
    bomb = b""

    def log_message(self, *args):
        pass

    def send_body(self, body, status=200, headers=None, content_type="application/octet-stream"):
        r = self.world.rng("http", self.path, self.world.requests)
        headers = dict(headers or {})
        ranged = self.headers.get("Range")
        misbehave = r.randrange(12) if not self.path.startswith("/feed/") else r.randrange(24)
        start, end = 0, len(body)
        if ranged and status == 200:
            m = re.match(r"bytes=(\d+)-(\d*)", ranged)
            if m:
                start = min(int(m.group(1)), len(body))
                end = min(int(m.group(2)) + 1, len(body)) if m.group(2) else len(body)
                status = 206
                headers["Content-Range"] = f"bytes {start}-{max(start, end - 1)}/{len(body)}"
                if misbehave == 0:  # a Content-Range that is not the one asked for
                    headers["Content-Range"] = r.choice([f"bytes 0-{len(body) - 1}/{len(body)}", "bytes 5-2/1",
                                                         f"bytes {start}-{end}/18446744073709551615", "bytes */*", "garbage"])
        part = body[start:end]
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Accept-Ranges", "bytes")
        for key, value in headers.items():
            self.send_header(key, value)
        if misbehave == 1:  # a Content-Length of 10 GB, then the connection ends
            self.send_header("Content-Length", str(10 << 30))
            self.end_headers()
            self.write(part[:4096])
            self.close_connection = True
            return
        self.send_header("Content-Length", str(len(part)))
        self.end_headers()
        if self.command == "HEAD":
            return
        if misbehave == 2:  # reset in the middle
            self.write(part[: len(part) // 2])
            self.close_connection = True
            try:
                self.connection.setsockopt(__import__("socket").SOL_SOCKET, __import__("socket").SO_LINGER, struct.pack("ii", 1, 0))
            except OSError:
                pass
            return
        if misbehave == 3:  # slow: a trickle, then the rest
            for i in range(0, min(len(part), 64), 8):
                self.write(part[i:i + 8])
                time.sleep(0.05)
            self.write(part[64:])
            return
        self.write(part)

    def write(self, data):
        try:
            self.wfile.write(data)
            with self.world.lock:
                self.world.bytes_served += len(data)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    def do_HEAD(self):
        self.do_GET()

    def do_GET(self):
        with self.world.lock:
            self.world.requests += 1
        w = self.world
        parts = self.path.split("?")[0].strip("/").split("/")
        base = "http://%s:%d" % self.server.server_address[:2]
        try:
            kind = parts[0]
            if kind == "feed":
                n = int(parts[1].split(".")[0])
                r = w.rng("feedhttp", n, w.requests // 50)
                odd = r.randrange(16)
                if odd == 0:
                    return self.redirect(f"{base}/loop/{n}/a")
                if odd == 1:
                    self.send_response(200)
                    self.send_header("Content-Type", "application/rss+xml")
                    self.send_header("Content-Encoding", "gzip")
                    self.send_header("Content-Length", str(len(self.bomb)))
                    self.end_headers()
                    return self.write(self.bomb)
                return self.send_body(w.feed(n, base), content_type="application/rss+xml")
            if kind in ("synced", "synced-moved", "synced-copy"):  # served cleanly: a cut feed may drop episodes
                n = int(parts[1].split(".")[0])
                if kind == "synced" and n in w.moved:  # the host moved the show
                    return self.redirect(f"{base}/synced-moved/{n}.xml", status=301)
                return self.send_clean(synced_pair.synced_feed(base, n, copy=kind == "synced-copy"), "application/rss+xml")
            if kind == "synced-media":
                return self.send_body(w.minute, content_type="audio/mpeg")
            if kind == "loop":
                return self.redirect(f"{base}/loop/{parts[1]}/{'b' if parts[2] == 'a' else 'a'}")
            if kind == "media":
                n, name = int(parts[1]), parts[2]
                k, fmt = name.split(".")
                return self.send_body(w.media(n, int(k), fmt), content_type="audio/" + fmt)
            if kind == "chapters":
                return self.send_body(w.chapters(int(parts[1]), parts[2]), content_type="application/json")
            if kind == "transcript":
                k, fmt = parts[2].split(".")
                return self.send_body(w.transcript(int(parts[1]), k, fmt), content_type="text/plain")
            if kind == "art":
                name = parts[2].split(".", 1)[1]
                return self.send_body(w.art.get(name, b""), content_type="image/png")
        except (ValueError, IndexError):
            pass
        self.send_response(404)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def send_clean(self, body, content_type):
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.write(body)

    def redirect(self, to, status=302):
        self.send_response(status)
        self.send_header("Location", to)
        self.send_header("Content-Length", "0")
        self.end_headers()


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def handle_error(self, request, client_address):
        pass  # a client that hung up (as podsd does when it has what it needs) is no news


# -- the driver ---------------------------------------------------------------------------------


class Failed(Exception):
    """A crash, hang or unbounded RSS: the run stops where it happened."""


def backtrace_helper():
    """The toolchain's static swift-backtrace (or an installed package's), or None."""
    candidates = ["/usr/libexec/pods/swift-backtrace"]
    swift = shutil.which("swift")
    if swift:
        candidates.insert(0, os.path.normpath(os.path.join(os.path.dirname(os.path.realpath(swift)),
                                                           "../libexec/swift/linux/swift-backtrace-static")))
    return next((path for path in candidates if os.access(path, os.X_OK)), None)


def private_bus():
    """A session bus of its own (for a second podsd: the first owns the names on the run's bus): the process, its address."""
    bus = subprocess.Popen(["dbus-daemon", "--config-file=Tests/session-bus.conf", "--nofork", "--print-address=1"],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    return bus, bus.stdout.readline().decode().strip()


class Driver:
    def __init__(self, args, base, work, name="podsd", bus=None):
        self.args = args
        self.name = name
        self.bus = bus
        self.base = base
        self.work = work
        self.bin = args.bin
        self.calls = 0
        self.failures = []
        self.peak_rss = 0
        # A crash prints its backtrace into podsd.log: podsd carries the Swift runtime inside, and such a
        # binary finds no backtracer of its own, so it is named (as the package's systemd unit names its own).
        backtrace = "interactive=no" + ("," + "swift-backtrace=" + backtrace_helper() if backtrace_helper() else "")
        self.env = dict(os.environ, XDG_CONFIG_HOME=os.path.join(work, "config"), XDG_DATA_HOME=os.path.join(work, "data"),
                        XDG_CACHE_HOME=os.path.join(work, "cache"), HOME=work, TERM="xterm-256color",
                        SWIFT_BACKTRACE=backtrace)
        if bus:
            self.env["DBUS_SESSION_BUS_ADDRESS"] = bus[1]
        os.makedirs(work, exist_ok=True)
        self.log = open(os.path.join(work, "podsd.log"), "wb")
        self.podsd = None
        self.starts = 0

    def start_podsd(self):
        self.starts += 1
        self.podsd = subprocess.Popen([os.path.join(self.bin, "podsd"), "--audio-sink", "fakesink sync=true",
                                       "--data-dir", os.path.join(self.work, "data"), "--cache-dir", os.path.join(self.work, "cache"),
                                       "--refresh-interval", "0"], env=self.env, stdout=self.log, stderr=self.log)
        deadline = time.time() + 20
        while time.time() < deadline:
            if self.run(["status"], quiet=True, limit=5) is not None:
                return
            time.sleep(0.2)
        self.fail("podsd did not answer within 20 s of its start")

    def check_podsd(self, what):
        code = self.podsd.poll()
        if code is not None:
            self.fail(f"{self.name} died (exit {code}, signal {-code if code < 0 else 0}) after: {what}")
            self.start_podsd()
            return
        try:
            with open(f"/proc/{self.podsd.pid}/status") as f:
                rss = int(re.search(r"VmRSS:\s+(\d+)", f.read()).group(1)) // 1024
            self.peak_rss = max(self.peak_rss, rss)
            if rss > self.args.rss_limit:
                self.fail(f"podsd's RSS is {rss} MiB, past {self.args.rss_limit} MiB, after: {what}")
        except (OSError, AttributeError):
            pass

    def run(self, arguments, quiet=False, limit=None, stdin=None):
        self.calls += 1
        limit = limit or self.args.call_limit
        what = "pods " + " ".join(arguments) + ("" if self.name == "podsd" else f" (on the {self.name} podsd)")
        try:
            done = subprocess.run([os.path.join(self.bin, "pods")] + arguments, env=self.env, capture_output=True, timeout=limit,
                                  input=stdin.encode() if stdin else None)
        except subprocess.TimeoutExpired:
            self.fail(f"hung: {what} did not end within {limit} s")
            return None
        if done.returncode < 0:
            self.fail(f"crashed: {what} died of signal {-done.returncode}: {done.stderr[-600:].decode('utf-8', 'replace')}")
        if arguments[0] != "ui":
            self.check_printed(what, done)
        if not quiet:
            self.check_podsd(what)
        return done if done.returncode == 0 else None

    # What an older, laxer Pods (or a hand) may have left in the library: every value read back is input.
    LIBRARY_EDITS = [
        "UPDATE transcript SET cues = '[{\"start\":1e300,\"text\":\"x\"},{\"start\":-1,\"end\":9.3e18,\"text\":\"y\"}]'",
        # (Not the synced shows' positions: synced_pair counts those as the listener's.)
        "UPDATE episode SET duration = 1e300 WHERE id % 3 = 0", "UPDATE episode SET position = -1 WHERE id % 5 = 0 AND guid NOT LIKE 'synced-%'",
        "UPDATE episode SET position = 9.3e18 WHERE id % 7 = 0 AND guid NOT LIKE 'synced-%'", "UPDATE episode SET title = title || '\x1b]52;c;eA==\x07'",
        "INSERT INTO bookmark (episodeId, position, note, createdAt) SELECT id, 1e300, 'huge', 0 FROM episode LIMIT 3",
        "UPDATE podcast SET link = 'file:///etc/passwd', artworkURL = 'file:///etc/passwd'",
        "UPDATE episode SET link = 'file:///etc/passwd', transcriptURL = 'file:///etc/passwd' WHERE id % 4 = 0",
        "UPDATE setting SET value = 'nan' WHERE key = 'rate'", "UPDATE setting SET value = '1e308' WHERE key = 'volume'",
    ]

    def edit_library(self, r):
        """Rows of the library podsd wrote edited to boundary values, while podsd is down."""
        import sqlite3
        path = os.path.join(self.work, "data", "library.sqlite")
        if not os.path.exists(path):
            return
        try:
            db = sqlite3.connect(path, timeout=5)
            for statement in r.sample(self.LIBRARY_EDITS, k=3):
                try:
                    db.execute(statement)
                except sqlite3.Error:
                    pass  # a table this library does not have yet
            db.commit()
            db.close()
        except sqlite3.Error as error:
            print(f"hostile world: the library could not be edited: {error}", flush=True)

    # A terminal acts on these: no command may print one (REVIEW-4, N5).
    CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")

    def check_printed(self, what, done):
        if "--json" in what:
            return  # JSON escapes what it carries
        for stream in (done.stdout, done.stderr):
            found = self.CONTROLS.search(stream.decode("utf-8", "replace"))
            if found:
                self.fail(f"{what} printed U+{ord(found.group(0)):04X} to a terminal")

    def gdbus(self, arguments):
        self.calls += 1
        try:
            subprocess.run(["gdbus", "call", "--session"] + arguments, env=self.env, capture_output=True, timeout=self.args.call_limit)
        except subprocess.TimeoutExpired:
            self.fail("hung: gdbus " + " ".join(arguments))
        self.check_podsd("gdbus " + " ".join(arguments))

    def stop(self):
        """SIGTERM: podsd must be gone within 10 s (then it is killed); its own bus, if any, goes with it."""
        try:
            if self.podsd and self.podsd.poll() is None:
                self.podsd.terminate()
                try:
                    self.podsd.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    self.podsd.kill()
                    self.fail(f"{self.name} did not stop within 10 s of SIGTERM")
        except Failed:
            pass
        finally:
            if self.bus:
                self.bus[0].kill()
                self.bus[0].wait()

    def fail(self, message):
        print("hostile world: FAIL: " + message, flush=True)
        self.failures.append(message)
        raise Failed(message)  # the run ends at its first failure: its files are the fixture

    def episodes(self):
        """The hostile feeds' episodes (the synced shows' are synced_pair's to play)."""
        done = self.run(["episodes", "--json", "--limit", "5000"])
        try:
            return [e["id"] for e in json.loads(done.stdout) if not str(e.get("guid")).startswith("synced-")] if done else []
        except (ValueError, KeyError, TypeError):
            return []

    def ui_walk(self, steps):
        session = f"hostile-{os.getpid()}"
        tmux = ["tmux", "-L", session]
        try:
            subprocess.run(tmux + ["new-session", "-d", "-x", "120", "-y", "40", os.path.join(self.bin, "pods") + " ui --no-artwork; sleep 30"],
                           env=self.env, check=True, timeout=10)
            time.sleep(1.5)
            for key in ["4"] + ["j", "l", "h"] * steps:
                subprocess.run(tmux + ["send-keys", key], env=self.env, timeout=5)
                time.sleep(0.05)
                self.calls += 1
            screen = subprocess.run(tmux + ["capture-pane", "-p"], env=self.env, capture_output=True, timeout=5).stdout.decode("utf-8", "replace")
            alive = subprocess.run(["pgrep", "-f", os.path.join(self.bin, "pods") + " ui"], capture_output=True).returncode == 0
            if not alive:
                self.fail("pods ui ended while stepping through the pages:\n" + screen[-1500:])
            subprocess.run(tmux + ["send-keys", "q"], env=self.env, timeout=5)
        except (subprocess.SubprocessError, OSError) as error:
            self.fail(f"pods ui could not be driven: {error}")
        finally:
            subprocess.run(tmux + ["kill-server"], env=self.env, capture_output=True)
        self.check_podsd("pods ui")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--minutes", type=float, default=1)
    parser.add_argument("--feeds", type=int, default=24)
    parser.add_argument("--bin", default=".build/debug")
    parser.add_argument("--testdata", default="../shared/testdata")
    parser.add_argument("--rss-limit", type=int, default=600, help="MiB")
    parser.add_argument("--call-limit", type=int, default=60, help="seconds one command may take")
    parser.add_argument("--keep", help="a folder to keep the run's files in")
    parser.add_argument("--no-sync", action="store_true", help="without the second, synced library (synced_pair)")
    args = parser.parse_args()
    # Stopped from outside (./scripts/test's trap, a timeout): the finally below stops both podsd
    # and the second one's bus, which nothing else would.
    signal.signal(signal.SIGTERM, lambda number, frame: sys.exit(128 + number))
    work = args.keep or tempfile.mkdtemp(prefix="pods-hostile-")
    os.makedirs(work, exist_ok=True)
    world = World(args.seed, work, args.feeds, args.testdata)
    Handler.world = world
    Handler.bomb = gzip_bomb(256)
    server = Server(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = "http://127.0.0.1:%d" % server.server_address[1]
    driver = Driver(args, base, work)
    pair = None
    if not args.no_sync:
        synced_pair.SyncHandler.state = synced_pair.SyncServer(args.seed, base)
        sync_server = Server(("127.0.0.1", 0), synced_pair.SyncHandler)
        threading.Thread(target=sync_server.serve_forever, daemon=True).start()
        second = Driver(args, base, os.path.join(work, "second"), name="second podsd", bus=private_bus())
        second.failures = driver.failures  # one verdict for the run
        pair = synced_pair.SyncedPair(driver, second, world, base, "http://127.0.0.1:%d" % sync_server.server_address[1],
                                      random.Random(f"pair-{args.seed}"))
    started = time.time()
    deadline = started + args.minutes * 60
    rounds = 0
    try:
      try:
        driver.start_podsd()
        for n in range(args.feeds):
            driver.run(["subscribe", f"{base}/feed/{n}.xml"])
        if pair:
            pair.start()
        r = random.Random(args.seed)
        seen = set()
        while time.time() < deadline:
            rounds += 1
            driver.run(["refresh"])
            episodes = driver.episodes()
            seen.update(episodes)
            r.shuffle(episodes)
            for episode in episodes[: 40]:
                if time.time() > deadline:
                    break
                e = str(episode)
                for arguments in (["show", e], ["show", e, "--json"], ["show", e, "--transcript"], ["chapters", e, "--json"], ["episode", e]):
                    driver.run(arguments)
                driver.gdbus(["--dest", "org.pods.Pods", "--object-path", "/org/pods/Library", "--method", "org.pods.Library2.Artwork",
                              e, str(r.choice([64, 256, 1024]))])
                if r.random() < 0.3:
                    driver.run(["play", e])
                    driver.run(["seek", r.choice(["+30", "-15", "90", "1:30", "0"])])
                    driver.run(["chapters"])
                    driver.run(["next"])
                    driver.run(["status", "--json"])
            if pair:
                pair.step()
            if rounds % 2 == 1:
                driver.ui_walk(steps=15)
            if rounds % 3 == 0:  # a kill at any moment: podsd starts again, whatever its files hold
                driver.podsd.kill()
                driver.podsd.wait()
                driver.edit_library(r)
                driver.start_podsd()
        if pair:
            pair.sync_both()
            pair.count()
        listed = driver.run(["podcasts", "--json"])
        try:
            podcasts = [p["id"] for p in json.loads(listed.stdout)] if listed else []
        except (ValueError, KeyError, TypeError):
            podcasts = []
        for podcast in podcasts[: max(1, len(podcasts) // 4)]:
            driver.run(["unsubscribe", str(podcast)])
      except Failed:
        pass
    finally:
        driver.stop()
        if pair:
            pair.devices[1].stop()
        server.shutdown()
    minutes = (time.time() - started) / 60
    print(f"hostile world: seed {args.seed}, {minutes:.1f} min, {args.feeds} feeds, {len(seen)} episodes, {rounds} rounds, "
          f"{driver.calls + (pair.devices[1].calls if pair else 0)} calls, {world.requests} requests, {world.bytes_served / 1e6:.1f} MB served, "
          f"{len(driver.failures)} failures (crashes, hangs and losses), podsd started {driver.starts} times, peak RSS {driver.peak_rss} MiB"
          + (f"; {pair.summary()}, {synced_pair.SyncHandler.state.hostile_answers} hostile sync answers" if pair else ""))
    if driver.failures:
        print(f"hostile world: the run's files (podsd.log, library) are in {work}")
    elif not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    print(f"hostile world: {0 if driver.failures else 1} passed, {1 if driver.failures else 0} failed")
    sys.exit(1 if driver.failures else 0)


if __name__ == "__main__":
    main()
