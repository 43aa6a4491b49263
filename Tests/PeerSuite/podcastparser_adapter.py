#!/usr/bin/env python3
"""Maps `pods inspect --json` onto gPodder podcastparser's schema, so that
../shared/testdata/podcastparser/run_suite.py can score our parser against
podcastparser's own test corpus.

    run_suite.py --suite ../shared/testdata/podcastparser \
        --cmd "python3 Tests/PeerSuite/podcastparser_adapter.py {path} {url} {max_episodes}"

The conversions here are podcastparser's choices, not ours (see SCHEMA.md):
newest-first order (oldest first for serial shows), Unix-time dates with 0
for none, -1 for a missing size, 'application/octet-stream' for a missing
type, the URL basename as a missing title, 'host'/'cast' person defaults.

Fields podcastparser has and Pods deliberately does not produce are ignored
by the runner (see IGNORED_FIELDS, printed by --ignored), each with why.
"""
import calendar
import json
import os
import posixpath
import subprocess
import sys
import time

# Field glob -> why Pods does not produce it.
IGNORED_FIELDS = {
    "podcast.generator": "the generating software is of no use to a listener; Pods does not keep it",
    "podcast.itunes_owner": "the owner's name and e-mail are for directory operators, not shown in a player",
    "podcast.itunes_keywords": "deprecated by Apple and not shown by Pods",
    "podcast.payment_url": "atom rel=payment is a pre-Podcasting-2.0 convention; Pods reads podcast:funding",
    "podcast.paged_feed_first": "RFC 5005 paging is not followed yet (a later issue)",
    "podcast.paged_feed_next": "RFC 5005 paging is not followed yet (a later issue)",
    "episodes[].payment_url": "per-episode atom rel=payment links: see podcast.payment_url",
    "episodes[].subtitle": "itunes:subtitle is a short duplicate of the description; Pods shows the description",
}

# Atom only: Pods follows RFC 4287 where podcastparser reads less, so these
# fields are ignored for the atom_* cases (run.sh scores them in a second pass).
ATOM_IGNORED_FIELDS = {
    "podcast.link": "a <link> without rel is the alternate link (RFC 4287 4.2.7.2); podcastparser wants type=text/html",
    "podcast.itunes_author": "Pods takes the feed's atom:author as its author; podcastparser reads only itunes:author",
    "episodes[].description": "atom:summary is an entry's description when it has no content; podcastparser drops it",
}

PODS = os.environ.get("PODS_BIN") or os.path.join(os.path.dirname(__file__), "..", "..", ".build", "debug", "pods")


def unix_time(iso):
    if not iso:
        return 0
    return calendar.timegm(time.strptime(iso, "%Y-%m-%dT%H:%M:%SZ"))


def as_int(value):
    if value is None:
        return None
    return int(value) if float(value).is_integer() else value


def convert_episode(episode):
    guid = episode["guid"]
    # podcastparser resolves a permalink guid into a URL; Pods keeps the guid
    # as written (its identity must not change when the feed moves) and puts
    # the resolved permalink in `link`.
    if "://" not in guid and episode["link"] and episode["link"].endswith(guid.lstrip("/")):
        guid = episode["link"]
    out = {
        "title": episode["title"],
        "guid": guid,
        "link": episode["link"] or "",
        "description": episode["description"],
        "published": unix_time(episode["published"]),
        "total_time": int(episode["duration"] or 0),
        "payment_url": None,
        "enclosures": [
            {"url": e["url"], "file_size": e["length"] if e["length"] is not None else -1,
             "mime_type": e["type"] if e["type"] and "/" in e["type"] else "application/octet-stream"}
            for e in episode["enclosures"]
        ],
    }
    if episode["descriptionHTML"] is not None:
        out["description_html"] = episode["descriptionHTML"]
    if episode["artworkURL"]:
        out["episode_art_url"] = episode["artworkURL"]
    if episode["explicit"] is not None:
        out["explicit"] = episode["explicit"]
    if episode["author"]:
        out["itunes_author"] = episode["author"]
    if episode["season"] is not None:
        out["season"] = episode["season"]
    if episode["number"] is not None and episode["number"] > 0:
        out["number"] = episode["number"]
    if episode["episodeType"]:
        out["type"] = episode["episodeType"]
    if episode["chapters"]:
        chapters = []
        for c in episode["chapters"]:
            chapter = {"start": int(c["start"]), "title": c["title"]}
            if c["url"]:
                chapter["href"] = c["url"]
            if c["image"]:
                chapter["image"] = c["image"]
            chapters.append(chapter)
        out["chapters"] = chapters
    if episode["transcriptURL"]:
        out["transcript_url"] = episode["transcriptURL"]
    if episode["chaptersURL"]:
        out["chapters_json_url"] = episode["chaptersURL"]
    if episode["persons"]:
        out["persons"] = [
            {"name": p["name"], "role": (p["role"] or "host").lower(), "group": (p["group"] or "cast").lower(),
             "href": p["url"], "img": p["image"]}
            for p in episode["persons"]
        ]
    return out


def convert(feed, url, max_episodes):
    title = feed["title"] or posixpath.splitext(posixpath.basename(url))[0]
    out = {"title": title}
    optional = {
        "link": feed["link"], "description": feed["description"], "cover_url": feed["artworkURL"],
        "type": feed["type"], "language": feed["language"], "itunes_author": feed["author"],
        "new_url": feed["newFeedURL"], "funding_url": feed["fundingURL"],
    }
    for key, value in optional.items():
        if value:
            out[key] = value
    if feed["explicit"] is not None:
        out["explicit"] = feed["explicit"]
    if feed["locked"] is not None:
        out["import_prohibited"] = feed["locked"]
    if feed["categories"]:
        out["itunes_categories"] = feed["categories"]
    # podcastparser drops an item it cannot title (no title and not exactly one enclosure).
    episodes = [convert_episode(e) for e in feed["episodes"] if e["title"]]
    episodes.sort(key=lambda e: e["published"], reverse=feed["type"] != "serial")
    if max_episodes > 0:
        episodes = episodes[:max_episodes]
    out["episodes"] = episodes
    return out


def main():
    if sys.argv[1:] in (["--ignored"], ["--ignored-atom"]):
        fields = dict(IGNORED_FIELDS, **(ATOM_IGNORED_FIELDS if sys.argv[1] == "--ignored-atom" else {}))
        for field, why in fields.items():
            print(f"{field}\t{why}")
        return 0
    path, url, max_episodes = sys.argv[1], sys.argv[2], int(sys.argv[3] or 0)
    result = subprocess.run([PODS, "inspect", "--json", "--base-url", url, path], capture_output=True, text=True)
    if result.returncode != 0:
        print(json.dumps({"error": result.stderr.strip()}))
        return 1
    print(json.dumps(convert(json.loads(result.stdout), url, max_episodes)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
