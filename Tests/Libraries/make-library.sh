#!/usr/bin/env bash
# Makes a library the way a listener's comes to be, with this checkout's podsd
# and pods, and keeps it as Tests/Libraries/NAME.sqlite.gz: every later Pods must
# open it, keep what it holds and live (KeptLibraryTests, which also edits
# its rows to every boundary value). A library once kept is never made again:
# a new session keeps a new one beside it.
#
#   Tests/Libraries/make-library.sh NAME [BIN]   (BIN: .build/debug)
#
# The feed is served from loopback, so its addresses are dead when the
# library is opened again: as for a listener whose podcast's host went away.
set -euo pipefail
cd "$(dirname "$0")/../.."
name="$1" bin="${2:-.build/debug}"
work="$(mktemp -d)"
trap 'kill "${server:-}" 2>/dev/null; rm -rf "$work"' EXIT
mkdir -p "$work/web"
ffmpeg -v error -f lavfi -i "sine=frequency=330:duration=40" -ac 1 -y "$work/web/talk.mp3"
cp data/sample-episode-2.ogg "$work/web/other.ogg"
printf 'WEBVTT\n\n00:00:01.000 --> 00:00:03.000\nThe first line.\n\n00:00:05.000 --> 00:00:08.000\nA second line.\n' > "$work/web/talk.vtt"
printf '{"version":"1.2.0","chapters":[{"startTime":0,"title":"Opening"},{"startTime":20,"title":"Sponsor"}]}' > "$work/web/talk.json"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
base="http://127.0.0.1:$port"
cat > "$work/web/feed.xml" <<EOF
<?xml version="1.0"?><rss version="2.0" xmlns:podcast="https://podcastindex.org/namespace/1.0"
  xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd"><channel>
<title>Kept Show</title><podcast:guid>0b5e4c1a-9d7f-5e2b-8c3a-1f2e3d4c5b6a</podcast:guid><itunes:author>A Host</itunes:author>
<podcast:funding url="$base/support">Support the show</podcast:funding>
<item><title>Talk with a transcript</title><guid>kept-1</guid><pubDate>02 Nov 2026 08:00:00 GMT</pubDate><itunes:duration>40</itunes:duration>
  <description><![CDATA[<p>Notes with <a href="$base/link">a link</a>.</p>]]></description>
  <enclosure url="$base/talk.mp3" type="audio/mpeg" length="320000"/>
  <podcast:transcript url="$base/talk.vtt" type="text/vtt"/>
  <podcast:chapters url="$base/talk.json" type="application/json+chapters"/></item>
<item><title>Another episode</title><guid>kept-2</guid><pubDate>01 Nov 2026 08:00:00 GMT</pubDate>
  <enclosure url="$base/other.ogg" type="audio/ogg" length="100000"/></item>
</channel></rss>
EOF
(cd "$work/web" && exec python3 -m http.server --bind 127.0.0.1 "$port" >/dev/null 2>&1) &
server=$!
export XDG_CONFIG_HOME="$work/config" XDG_DATA_HOME="$work/share" XDG_CACHE_HOME="$work/cache" HOME="$work"
dbus-run-session --config-file=Tests/session-bus.conf -- bash -euo pipefail -c '
  bin="$1" work="$2" base="$3"
  "$bin/podsd" --audio-sink "fakesink sync=true" --data-dir "$work/data" --cache-dir "$work/cache" --refresh-interval 0 2>"$work/podsd.log" &
  for _ in $(seq 100); do "$bin/pods" status >/dev/null 2>&1 && break; sleep 0.2; done
  pods() { "$bin/pods" "$@"; }
  for _ in $(seq 50); do curl -sf "$base/feed.xml" >/dev/null && break; sleep 0.1; done
  pods subscribe "$base/feed.xml" >/dev/null
  first=$(pods episodes --json | python3 -c "import json,sys; print([e[\"id\"] for e in json.load(sys.stdin) if e[\"guid\"] == \"kept-1\"][0])")
  second=$(pods episodes --json | python3 -c "import json,sys; print([e[\"id\"] for e in json.load(sys.stdin) if e[\"guid\"] == \"kept-2\"][0])")
  pods show "$first" --transcript >/dev/null
  pods play "$first" >/dev/null
  for _ in $(seq 50); do pods status | grep -q "^Playing" && break; sleep 0.2; done
  pods seek 6 >/dev/null; sleep 1.5
  pods bookmark "the second line" >/dev/null
  pods seek 25 >/dev/null; sleep 1.5
  pods pause >/dev/null; sleep 1.5
  pods queue add "$second" >/dev/null
  pods playlist create "Talks" --title "talk" >/dev/null
  pods playlist create "By hand" --manual >/dev/null
  pods playlist add "By hand" "$second" >/dev/null
  pods config --podcast "Kept Show" speed 1.2 >/dev/null
  kill -TERM %1
  wait
' bash "$bin" "$work" "$base"
python3 - "$work/data/library.sqlite" <<'EOF'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
print("kept:", ", ".join(f"{t} {db.execute(f'SELECT count(*) FROM {t}').fetchone()[0]}"
      for t in ["podcast", "episode", "bookmark", "transcript", "playlist", "queueItem", "playSession"]))
EOF
# Mostly empty 16 KB pages (one a table or an index): a 950 KB file, 8 KB as gzip.
gzip -9 -n -c "$work/data/library.sqlite" > "Tests/Libraries/$name.sqlite.gz"
