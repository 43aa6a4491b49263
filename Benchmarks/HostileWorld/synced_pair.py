"""Two libraries synced through a sync server that lies, beside the hostile world.

A second podsd (its own bus, its own files) and the world's first sync
through a loopback stand-in for Nextcloud GPodder Sync (SYNC.md: one
subscription list, one row per episode, plays only). The stand-in answers
as the real app does, then adds what a hostile or broken server would:
copies of the synced shows that repeat their podcast:guid, title and
episode guids at other URLs (REVIEW-4, N2), subscriptions to URLs that are
not feeds, removals of those copies, and episode actions whose positions,
totals and timestamps are out of range or of the wrong type.

The synced shows themselves are served cleanly (a truncated feed may drop
the untouched episodes it lacks, which is no loss), and while the run goes
they move: the old address answers 301 to the new one, as a host moving a
show does (REVIEW-4, N1: the move deleted the show from every other device).

The second library begins as the newest one kept in Tests/Libraries
(written by an earlier session's code), so its podcast, bookmark and
playlists travel through the sync too.

Each device plays episodes of its own (the first device the even ones, the
other the odd ones), so nothing the other device does changes them, and
bookmarks some of them. After every sync, kill or move, both libraries are
counted: every synced show a device has had is still there (at either
address) with all its episodes, every position a device paused at is still
its position, and no bookmark is gone. A difference is a loss and fails the
run, as a crash does.
"""
import base64, glob, gzip, json, os, random, shutil, subprocess, threading, time
import http.server

SHOWS = 4
EPISODES = 6
USER, PASSWORD = "alice", "s3cret-app-pw"
APP = "/index.php/apps/gpoddersync"


def show_guid(n):
    return f"7c1e5a2b-3d4f-5a6b-8c9d-0e1f2a3b4c{n:02d}"


def synced_feed(base, n, copy=False):
    """Show n's feed: the same at its old address and its new one. A copy repeats the show's guid, title and
    episode guids with episodes of its own (other enclosures, other titles), from an address it cannot prove."""
    items = []
    for k in range(EPISODES):
        media = f"{base}/synced-media/{'copy-' if copy else ''}{n}/{k}.mp3"
        title = f"Stolen {k}" if copy else f"Synced {n}.{k}"
        items.append(f"<item><title>{title}</title><guid isPermaLink=\"false\">synced-{n}-{k}</guid>"
                     f"<pubDate>Mon, 0{k + 1} Jun 2026 10:00:00 +0000</pubDate>"
                     f"<enclosure url=\"{media}\" type=\"audio/mpeg\" length=\"60000\"/><itunes:duration>60</itunes:duration></item>")
    return ("<?xml version=\"1.0\" encoding=\"UTF-8\"?>"
            "<rss version=\"2.0\" xmlns:podcast=\"https://podcastindex.org/namespace/1.0\" "
            "xmlns:itunes=\"http://www.itunes.com/dtds/podcast-1.0.dtd\"><channel>"
            f"<title>Synced Show {n}</title><podcast:guid>{show_guid(n)}</podcast:guid><link>{base}/</link>"
            f"<description>A show the two devices share.</description>{''.join(items)}</channel></rss>").encode()


def owner(guid):
    """Which device plays an episode: the first the even ones, the second the odd ones."""
    try:
        return int(str(guid).rsplit("-", 1)[1]) % 2
    except (IndexError, ValueError):
        return None


def listed(device, arguments):
    """What `pods ARGUMENTS` (a --json list) printed on `device`, parsed; None when it failed or printed no JSON."""
    done = device.run(arguments, quiet=True)
    try:
        return json.loads(done.stdout) if done else None
    except ValueError:
        return None


class SyncServer:
    """Nextcloud GPodder Sync's state, with a hostile streak from the seed."""

    def __init__(self, seed, feeds_base):
        self.r = random.Random(f"sync-{seed}")
        self.feeds_base = feeds_base
        self.lock = threading.Lock()
        self.events = []  # (url, subscribed, at)
        self.actions = []  # dicts as uploaded, plays only, one per guid (else episode URL)
        self.requests = 0
        self.hostile_answers = 0

    def subscriptions(self, since):
        latest = {}
        with self.lock:
            for url, subscribed, at in self.events:
                if at > since:
                    latest[url] = subscribed
            hostile = self.r.random() < 0.5
        add = sorted(u for u, s in latest.items() if s)
        remove = sorted(u for u, s in latest.items() if not s)
        if hostile:
            self.hostile_answers += 1
            n = self.r.randrange(SHOWS)
            copy = f"{self.feeds_base}/synced-copy/{n}.xml"
            add += self.r.sample([copy, "file:///etc/passwd", "javascript:alert(1)", "http://127.0.0.1:1/dead.xml",
                                  f"{self.feeds_base}/synced/{n}.xml\x1b]52;c;eA==\x07", "http://" + "a" * 5000 + ".example/",
                                  f"{self.feeds_base}/feed/{n}.xml#\u202e"], k=2)
            remove += self.r.sample([copy, f"{self.feeds_base}/synced-copy/{(n + 1) % SHOWS}.xml", "http://127.0.0.1:1/never.xml"], k=1)
        return {"add": add, "remove": remove, "timestamp": int(time.time())}

    def change(self, body):
        now = int(time.time())
        with self.lock:
            for url in body.get("add", []):
                self.events.append((url, True, now))
            for url in body.get("remove", []):
                self.events.append((url, False, now))
        return {"timestamp": now}

    def store(self, actions):
        with self.lock:
            for action in actions:
                if not isinstance(action, dict) or str(action.get("action", "")).lower() != "play":
                    continue
                key = action.get("guid") or action.get("episode")
                self.actions = [a for a in self.actions if (a.get("guid") or a.get("episode")) != key] + [action]
        return {"timestamp": int(time.time())}

    def episode_actions(self, since):
        with self.lock:
            kept = [dict(a, action="PLAY") for a in self.actions if self.stamp(a) > since]
        if self.r.random() < 0.5:
            self.hostile_answers += 1
            kept += self.hostile_actions()
        return {"actions": kept, "timestamp": int(time.time())}

    def hostile_actions(self):
        """Out of range or of the wrong type, for the devices' own episodes and for others; from later than now."""
        r = self.r
        actions = []
        for _ in range(r.randrange(1, 6)):
            n, k = r.randrange(SHOWS), r.randrange(EPISODES)
            action = {"podcast": r.choice([f"{self.feeds_base}/synced/{n}.xml", f"{self.feeds_base}/synced-moved/{n}.xml",
                                           f"{self.feeds_base}/synced-copy/{n}.xml"]),
                      "episode": f"{self.feeds_base}/synced-media/{n}/{k}.mp3", "guid": f"synced-{n}-{k}", "action": "PLAY",
                      "timestamp": r.choice(["9999-12-31T23:59:59+00:00", "2999-01-01T00:00:00", "garbage", 1e20, None]),
                      "started": r.choice([0, -1, 1e300, "0"]),
                      "position": r.choice([1e300, -7, 2 ** 63, 2 ** 64, "12", None, [], 1e-300 - 5]),
                      "total": r.choice([60, 0, -1, 1e300, 2 ** 63])}
            actions.append(action)
        return actions

    @staticmethod
    def stamp(action):
        text = str(action.get("timestamp", ""))
        try:
            return int(time.mktime(time.strptime(text[:19], "%Y-%m-%dT%H:%M:%S")) - time.timezone)
        except (ValueError, OverflowError):
            return 0


class SyncHandler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    state = None

    def log_message(self, *args):
        pass

    def answer(self, status, obj):
        body = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def authorised(self):
        expected = "Basic " + base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()
        if self.headers.get("Authorization") == expected:
            return True
        self.answer(401, {"message": "Current user is not logged in"})
        return False

    def since(self):
        query = self.path.partition("?")[2]
        for part in query.split("&"):
            key, _, value = part.partition("=")
            if key == "since":
                try:
                    return int(value)
                except ValueError:
                    return 0
        return 0

    def do_GET(self):
        self.state.requests += 1
        if not self.authorised():
            return
        path = self.path.split("?")[0]
        if path == APP + "/subscriptions":
            return self.answer(200, self.state.subscriptions(self.since()))
        if path == APP + "/episode_action":
            return self.answer(200, self.state.episode_actions(self.since()))
        self.answer(404, {})

    def do_POST(self):
        self.state.requests += 1
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(min(length, 10 << 20))
        if not self.authorised():
            return
        try:
            parsed = json.loads(body or b"null")
        except ValueError:
            return self.answer(400, {"message": "invalid JSON"})
        path = self.path.split("?")[0]
        if path == APP + "/subscription_change/create" and isinstance(parsed, dict):
            return self.answer(200, self.state.change(parsed))
        if path == APP + "/episode_action/create" and isinstance(parsed, list):
            return self.answer(200, self.state.store(parsed))
        self.answer(400, {"message": "bad request"})


class SyncedPair:
    """The world's podsd and a second one, synced; their shows, positions and bookmarks counted."""

    def __init__(self, first, second, world, world_base, sync_base, r):
        self.devices = [first, second]
        self.base = world_base
        self.sync_base = sync_base
        self.r = r
        self.moved = world.moved
        self.positions = [{}, {}]  # guid → the second it was paused at
        self.bookmarks = [0, 0]
        self.had = [set(), set()]  # shows a device has had, with all their episodes
        self.plays = self.syncs = self.kills = 0

    def start(self):
        second = self.devices[1]
        # The second library begins as one today's code wrote (Tests/Libraries, the newest kept).
        kept = sorted(glob.glob("Tests/Libraries/*.sqlite.gz"))
        if kept:
            os.makedirs(os.path.join(second.work, "data"), exist_ok=True)
            with gzip.open(kept[-1]) as packed, open(os.path.join(second.work, "data", "library.sqlite"), "wb") as library:
                shutil.copyfileobj(packed, library)
        second.start_podsd()
        self.bookmarks[1] = len(listed(second, ["bookmarks", "--json"]) or [])  # the kept library's count too
        for index, device in enumerate(self.devices):
            device.run(["sync", "setup", self.sync_base, "--user", USER, "--device", f"pods-{index}", "--api", "nextcloud",
                        "--password-stdin"], stdin=PASSWORD + "\n")
        for n in range(SHOWS):
            self.devices[0].run(["subscribe", f"{self.base}/synced/{n}.xml"])
        self.sync_both()

    def sync_both(self):
        for device in self.r.sample(self.devices, k=2):
            self.syncs += 1
            device.run(["sync", "--json"], limit=120)

    def step(self):
        """One round: a play and a bookmark on one device, maybe a move or a kill mid-sync, syncs, the count."""
        r = self.r
        index = r.randrange(2)
        device = self.devices[index]
        self.play(index, device)
        if len(self.moved) < SHOWS and r.random() < 0.4:
            self.moved.add(r.randrange(SHOWS))
            device.run(["refresh"], limit=120)
        if r.random() < 0.3:  # a kill while a sync is under way: nothing of it half applied may lose anything
            syncing = subprocess.Popen([os.path.join(device.bin, "pods"), "sync"], env=device.env,
                                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            time.sleep(r.random() * 0.8)
            device.podsd.kill()
            device.podsd.wait()
            try:
                syncing.wait(timeout=60)
            except subprocess.TimeoutExpired:
                syncing.kill()
                device.fail("hung: pods sync did not end within 60 s of podsd's kill")
            self.kills += 1
            device.start_podsd()
        self.sync_both()
        self.count()

    def play(self, index, device):
        """Plays one of this device's own episodes, pauses it at a second of its middle, maybe with a bookmark."""
        ids = {i for podcasts in self.show_podcasts(device).values() for i in podcasts}
        own = [e for e in self.episodes(device) if e.get("podcastId") in ids and owner(e.get("guid")) == index]
        if not own:
            return
        episode = self.r.choice(own)
        if device.run(["play", str(episode["id"])]) is None:
            return
        device.run(["seek", str(self.r.randrange(10, 40))])
        if self.r.random() < 0.5 and device.run(["bookmark", "kept"]) is not None:
            self.bookmarks[index] += 1
        device.run(["pause"])
        # What the library keeps once the pause (and a seek still on its way) has settled.
        position = None
        for _ in range(10):
            time.sleep(0.4)
            now = next((float(e.get("position") or 0) for e in self.episodes(device) if e.get("id") == episode["id"]), None)
            if now is not None and now == position:
                break
            position = now
        if position is not None:
            self.positions[index][episode["guid"]] = position
            self.plays += 1

    def episodes(self, device):
        return listed(device, ["episodes", "--json", "--limit", "5000"]) or []

    def show_podcasts(self, device):
        """Show n → the ids of the device's podcasts at either of its addresses."""
        podcasts = listed(device, ["podcasts", "--json"]) or []
        shows = {}
        for n in range(SHOWS):
            addresses = {f"{self.base}/synced/{n}.xml", f"{self.base}/synced-moved/{n}.xml"}
            shows[n] = [p["id"] for p in podcasts if p.get("feedURL") in addresses]
        return shows

    def count(self):
        for index, device in enumerate(self.devices):
            name = ["first", "second"][index]
            shows = self.show_podcasts(device)
            episodes = self.episodes(device)
            for n, ids in shows.items():
                guids = {e.get("guid") for e in episodes if e.get("podcastId") in ids}
                whole = all(f"synced-{n}-{k}" in guids for k in range(EPISODES))
                if whole:
                    self.had[index].add(n)
                elif n in self.had[index]:
                    device.fail(f"lost: the {name} device's show {n} ({'moved' if n in self.moved else 'not moved'}) "
                                f"has {len(guids)} of its {EPISODES} episodes, in podcasts {ids}")
            by_guid = {}
            for e in episodes:
                if any(e.get("podcastId") in ids for ids in shows.values()):
                    by_guid.setdefault(e.get("guid"), []).append(float(e.get("position") or 0))
            for guid, position in self.positions[index].items():
                if not any(abs(p - position) <= 1.5 for p in by_guid.get(guid, [])):
                    device.fail(f"lost: the {name} device paused {guid} at {position} s; its library now says {by_guid.get(guid)}")
            bookmarks = listed(device, ["bookmarks", "--json"])
            kept = -1 if bookmarks is None else len(bookmarks)
            if kept < self.bookmarks[index]:
                device.fail(f"lost: the {name} device made {self.bookmarks[index]} bookmarks and keeps {kept}")

    def summary(self):
        return (f"synced pair: {self.plays} plays, {sum(self.bookmarks)} bookmarks, {len(self.moved)} of {SHOWS} shows moved, "
                f"{self.syncs} syncs, {self.kills} kills mid-sync, shows whole on each device {len(self.had[0])} and {len(self.had[1])}")
