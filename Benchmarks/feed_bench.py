#!/usr/bin/env python3
"""Feed-parser benchmark: `pods inspect` against libxml2's own floor
(`xmllint --stream --noout`) and gPodder's podcastparser, on synthetic feeds
of 1,000 and 10,000 episodes (2 KB HTML descriptions, all the usual tags),
measured in the same run. Also times `pods inspect --json` (parse and write the JSON contract) against
the parse alone. Prints throughput (MB/s, best of N) and peak RSS
per tool, also net of each tool's start-up (measured on a one-episode feed):
parsing throughput, and RSS growth over the feed's size. Compare the
ratios, not the absolute figures.

    python3 Benchmarks/feed_bench.py [--runs 3]

Needs: a release build (`swift build -c release --static-swift-stdlib --product pods`), xmllint
(Debian libxml2-utils), and podcastparser in .build/bench-venv (made here with
pip if missing).
"""
import argparse
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORK = os.path.join(ROOT, ".build", "bench-feeds")
VENV = os.path.join(ROOT, ".build", "bench-venv")
PODS = os.path.join(ROOT, ".build", "release", "pods")

DESCRIPTION = ("<p>In this episode we talk about <b>streaming parsers</b>, <a href=\"https://example.com/x\">links</a> "
               "&amp; the art of reading feeds.</p>" * 14)[:2000]


def make_feed(path, episodes):
    with open(path, "w", encoding="utf-8") as out:
        out.write('<?xml version="1.0" encoding="UTF-8"?>\n<rss version="2.0" '
                  'xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd" '
                  'xmlns:podcast="https://podcastindex.org/namespace/1.0" '
                  'xmlns:content="http://purl.org/rss/1.0/modules/content/" '
                  'xmlns:atom="http://www.w3.org/2005/Atom"><channel>\n'
                  '<title>Benchmark Show</title><link>https://example.com/</link><language>en</language>'
                  '<description>A synthetic show</description><itunes:author>Bench</itunes:author>'
                  '<itunes:image href="https://example.com/art.jpg"/><itunes:category text="Technology"/>'
                  '<podcast:funding url="https://example.com/support">Support</podcast:funding>\n')
        for n in range(episodes):
            out.write(
                f'<item><title>Episode {n}: a title of some length</title><guid isPermaLink="false">bench-{n}</guid>'
                f'<link>https://example.com/episodes/{n}</link>'
                f'<pubDate>Wed, {1 + n % 28:02d} May 2024 08:00:00 GMT</pubDate>'
                f'<description><![CDATA[{DESCRIPTION}]]></description>'
                f'<content:encoded><![CDATA[{DESCRIPTION}]]></content:encoded>'
                f'<enclosure url="https://cdn.example.com/episodes/{n}.mp3" length="{30_000_000 + n}" type="audio/mpeg"/>'
                f'<itunes:duration>1:02:{n % 60:02d}</itunes:duration><itunes:episode>{n + 1}</itunes:episode>'
                f'<itunes:season>{1 + n // 100}</itunes:season><itunes:episodeType>full</itunes:episodeType>'
                f'<itunes:explicit>false</itunes:explicit><itunes:image href="https://example.com/ep/{n}.jpg"/>'
                f'<podcast:transcript url="https://example.com/ep/{n}.vtt" type="text/vtt"/>'
                f'<podcast:chapters url="https://example.com/ep/{n}.json" type="application/json+chapters"/>'
                f'<podcast:person role="host" href="https://example.com/host">Host Person</podcast:person>'
                f'</item>\n')
        out.write("</channel></rss>\n")


def measure(commands, runs):
    """Best wall time (s) and peak RSS (KiB) of each command (a dict of
    name → argv), each run via a wrapper process whose only child is the
    command (so RUSAGE_CHILDREN is its own). The commands take turns, run
    by run, so a noisy minute on the machine falls on all of them alike."""
    probe = ("import resource, subprocess, sys, time\n"
             "start = time.perf_counter()\n"
             "done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL)\n"
             "elapsed = time.perf_counter() - start\n"
             "print(done.returncode, elapsed, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n")
    best, peak = {}, {}
    for _ in range(runs):
        for name, command in commands.items():
            line = subprocess.run([sys.executable, "-c", probe] + command, capture_output=True, text=True).stdout.split()
            code, elapsed, rss = int(line[0]), float(line[1]), int(line[2])
            if code != 0:
                raise SystemExit(f"{command[0]} failed with {code}")
            best[name] = min(best.get(name, elapsed), elapsed)
            peak[name] = max(peak.get(name, 0), rss)
    return {name: (best[name], peak[name]) for name in commands}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    os.makedirs(WORK, exist_ok=True)
    if not os.path.exists(PODS):
        raise SystemExit("build first: swift build -c release --static-swift-stdlib --product pods")
    if not os.path.exists(os.path.join(VENV, "bin", "python")):
        subprocess.run([sys.executable, "-m", "venv", VENV], check=True)
    subprocess.run([os.path.join(VENV, "bin", "pip"), "install", "-q", "podcastparser"], check=True)
    peers = {
        "pods inspect": lambda path: [PODS, "inspect", path],
        "pods inspect --json": lambda path: [PODS, "inspect", "--json", path],
        "xmllint --stream": lambda path: ["xmllint", "--stream", "--noout", path],
        "podcastparser": lambda path: [os.path.join(VENV, "bin", "python"), "-c",
                                       "import podcastparser, sys; podcastparser.parse('file://' + sys.argv[1], open(sys.argv[1], 'rb'))", path],
    }
    # Each tool's own start-up (time and RSS) on a one-episode feed, so the
    # figures can also be given net of it: throughput of the parsing itself,
    # and RSS growth while parsing.
    tiny = os.path.join(WORK, "feed-1.xml")
    if not os.path.exists(tiny):
        make_feed(tiny, 1)
    startup = measure({name: command(tiny) for name, command in peers.items()}, args.runs)
    print(f"{'feed':<17}{'tool':<18}{'MB/s':>7}{'net MB/s':>10}{'peak RSS MiB':>14}{'growth/size':>13}")
    for episodes in (1000, 10000):
        path = os.path.join(WORK, f"feed-{episodes}.xml")
        if not os.path.exists(path):
            make_feed(path, episodes)
        size = os.path.getsize(path)
        results = measure({name: command(path) for name, command in peers.items()}, args.runs)
        net = {}
        for name, (elapsed, rss) in results.items():
            start_time, start_rss = startup[name]
            net[name] = size / 1e6 / max(elapsed - start_time, 1e-6)
            print(f"{episodes:>5} ({size / 1e6:4.1f} MB) {name:<18}{size / 1e6 / elapsed:>7.1f}{net[name]:>10.1f}"
                  f"{rss / 1024:>14.1f}{(rss - start_rss) * 1024 / size:>13.2f}")
        pods, lint, peer = (results[k][0] for k in ("pods inspect", "xmllint --stream", "podcastparser"))
        print(f"{'':17}pods/xmllint throughput {lint / pods:.2f} (net {net['pods inspect'] / net['xmllint --stream']:.2f}), "
              f"pods/podcastparser {peer / pods:.1f}× (net {net['pods inspect'] / net['podcastparser']:.1f}×), "
              f"--json costs {results['pods inspect --json'][0] / pods:.2f}× the parse")
    print("start-up on a one-episode feed: " + ", ".join(
        f"{name} {elapsed * 1000:.0f} ms / {rss / 1024:.1f} MiB" for name, (elapsed, rss) in startup.items()))

if __name__ == "__main__":
    main()
