#!/usr/bin/env bash
# Scores `pods inspect` against gPodder podcastparser's test corpus
# (../shared/testdata/podcastparser) through the adapter. Extra arguments go
# to run_suite.py (e.g. -q, --only 'chapters*').
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
suite="$here/../../../shared/testdata/podcastparser"
ignore=()
while IFS=$'\t' read -r field _; do ignore+=(--ignore-field "$field"); done < <(python3 "$here/podcastparser_adapter.py" --ignored)
exec python3 "$suite/run_suite.py" --suite "$suite" "${ignore[@]}" \
  --cmd "python3 $here/podcastparser_adapter.py {path} {url} {max_episodes}" "$@"
