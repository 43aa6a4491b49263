#!/usr/bin/env bash
# Scores `pods inspect` against gPodder podcastparser's test corpus
# (../shared/testdata/podcastparser) through the adapter, in two passes:
# every non-Atom case with the fields Pods never produces ignored, then the
# atom_* cases with the Atom differences ignored too (see the adapter).
# Exit status 0 iff every case of both passes passes. Extra arguments go to
# run_suite.py (e.g. -q).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
suite="$here/../../../shared/testdata/podcastparser"
if [ ! -f "$suite/run_suite.py" ]; then
  echo "peer suite: $suite not found (the tests need ../shared/testdata beside the repository)" >&2
  exit 1
fi
command="python3 $here/podcastparser_adapter.py {path} {url} {max_episodes}"
ignores() { while IFS=$'\t' read -r field _; do printf -- '--ignore-field\n%s\n' "$field"; done < <(python3 "$here/podcastparser_adapter.py" "$1"); }
mapfile -t common < <(ignores --ignored)
mapfile -t atom < <(ignores --ignored-atom)
status=0
echo "== podcastparser corpus: all but atom_* =="
python3 "$suite/run_suite.py" --suite "$suite" "${common[@]}" --only '[!a]*' --cmd "$command" "$@" || status=1
echo "== podcastparser corpus: atom_* =="
python3 "$suite/run_suite.py" --suite "$suite" "${atom[@]}" --only 'a*' --cmd "$command" "$@" || status=1
exit $status
