#!/usr/bin/env python3
"""castero's library for pods-ui-bench: the same shows as the bench's Pods
library (PODCASTS podcasts of EACH episodes, "Episode N of show S", a
description of DESCRIPTION bytes), written into castero's own database
through castero's own feed parser and database code, under ROOT's
XDG_DATA_HOME (ROOT/data) and XDG_CONFIG_HOME (ROOT/config).

usage: castero_library.py ROOT PODCASTS EACH DESCRIPTION
"""
import os
import sys

root, podcasts, each, description = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
os.environ["XDG_DATA_HOME"] = os.path.join(root, "data")
os.environ["XDG_CONFIG_HOME"] = os.path.join(root, "config")

from castero.database import Database  # noqa: E402 (castero reads the XDG paths as it is imported)
from castero.feed import Feed  # noqa: E402

database = Database()
body = "d" * description
for show in range(podcasts):
    items = []
    for index in range(each):
        number = each - index
        items.append(
            f"<item><title>Episode {number} of show {show}</title><guid>s{show}e{number}</guid>"
            f"<pubDate>{1 + index % 28:02d} Nov 2026 08:00:00 GMT</pubDate><description>{body}</description>"
            f'<enclosure url="http://127.0.0.1:1/s{show}/{number}.mp3" type="audio/mpeg" length="1"/></item>')
    text = (f'<?xml version="1.0"?><rss version="2.0"><channel><title>Show {show}</title>'
            f"<link>http://127.0.0.1:1/</link><description>Show {show}</description>"
            + "".join(items) + "</channel></rss>")
    feed = Feed(url=f"http://127.0.0.1:1/feed{show}.xml", text=text)
    database.replace_feed(feed)
    database.replace_episodes(feed, feed.parse_episodes())
database.close()
