#!/usr/bin/env bash
# Installs Pods' Debian package the way a listener does, in a clean Debian
# 12 root: mmdebstrap makes a minimal one from the mirrors apt uses here
# (kept as a tarball in /var/cache/pods-tests and unpacked afresh for every
# run; made again when absent), `apt-get install ./pods_*.deb` pulls what
# the package depends on, and then, on a private session bus inside the
# root: `pods status` activates podsd, the sample podcast plays to a silent
# sink, `playerctl -p pods status` answers; on an X server (Xvfb) the window
# opens and starts podsd; `apt-get remove` leaves none of
# the package's files behind. Needs root (chroot, mounts).
#
# By default the release package is made (./scripts/package, in a build
# folder of its own, .build/package, niced) while the clean root is made
# ready. ./scripts/test passes --debug: the package is made from its debug
# build, the binaries its suites run (they carry the Swift runtime inside as
# the release ones do, Package.swift), so a test run compiles Pods once. On
# the project's two cores a second, release build beside the first took as
# long as the two one after the other: three minutes of every run
# (docs/build-costs.md, session 24).
#
#   Tests/Package/run.sh [--debug | PACKAGE.deb]
set -uo pipefail
cd "$(dirname "$0")/../.."
[ "$(id -u)" -eq 0 ] || { echo "package test: needs root (chroot)" >&2; exit 1; }
started=$(date +%s)
work="$(mktemp -d /var/tmp/pods-package-test.XXXXXX)"
root="$work/root"
cleanup() {
  [ -z "${build_pid:-}" ] || kill "$build_pid" 2>/dev/null
  for mount in dev/pts dev proc sys; do umount -l "$root/$mount" 2>/dev/null; done
  rm -rf --one-file-system "$work"
}
trap cleanup EXIT
source Tests/check.sh
inside() { chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"; }

deb="${1:-}" build_pid=""
if [ "$deb" = --debug ]; then  # made while the clean root is made ready below
  ./scripts/package --debug --skip-build --output "$work" >/dev/null &
  build_pid=$! deb=""
elif [ -z "$deb" ]; then
  nice -n 19 ./scripts/package --output "$work" --scratch-path .build/package >/dev/null &
  build_pid=$!
fi

# The clean root: a minimal bookworm from the mirrors this machine's apt uses.
cache=/var/cache/pods-tests/bookworm-minbase.tar
if [ ! -s "$cache" ]; then
  mkdir -p "$(dirname "$cache")"
  mirrors=()
  for uri in $(sed -n 's/^URIs: //p' /etc/apt/sources.list.d/debian.sources 2>/dev/null); do
    case "$uri" in
      *security*) mirrors+=("deb $uri bookworm-security main") ;;
      *) mirrors+=("deb $uri bookworm main" "deb $uri bookworm-updates main") ;;
    esac
  done
  [ ${#mirrors[@]} -gt 0 ] || mirrors=("deb http://deb.debian.org/debian bookworm main" "deb http://deb.debian.org/debian-security bookworm-security main")
  made=$(date +%s)
  mmdebstrap --quiet --variant=minbase --dpkgopt=force-unsafe-io --format=tar bookworm "$cache.new" "${mirrors[@]}" || { echo "package test: mmdebstrap failed" >&2; exit 1; }
  mv "$cache.new" "$cache"
  echo "package test: made a clean bookworm root in $(( $(date +%s) - made )) s (kept in $cache)"
fi
mkdir -p "$root"
tar -xf "$cache" -C "$root"
for mount in dev dev/pts proc sys; do mkdir -p "$root/$mount"; done
mount --bind /dev "$root/dev" && mount --bind /dev/pts "$root/dev/pts" && mount -t proc proc "$root/proc" && mount -t sysfs sys "$root/sys"
cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null
# The root is thrown away at the end: dpkg need not sync each file it unpacks. Its syncs stalled
# the suites running beside this test (a CI run had four of their time limits fail at once).
echo force-unsafe-io > "$root/etc/dpkg/dpkg.cfg.d/pods-test-unsafe-io"
check "apt-get update in the clean root" inside apt-get update -qq

if [ -n "$build_pid" ]; then
  wait "$build_pid" || { echo "package test: ./scripts/package failed" >&2; exit 1; }
  build_pid=""
  deb="$(ls "$work"/pods_*.deb)"
  echo "package test: ./scripts/package took $(( $(date +%s) - started )) s"
fi
cp "$deb" "$root/tmp/"
name="$(basename "$deb")"
check "apt-get install ./$name" inside apt-get install -y -qq --no-install-recommends "/tmp/$name"
check "its dependencies are all there (apt-get check)" inside apt-get check -qq
check "podsd runs: it links nothing the package did not bring" inside /usr/bin/podsd --version
check "pods runs" inside /usr/bin/pods --version
check "the unit's backtrace helper is installed and runs here" \
  bash -c "grep -qx 'Environment=SWIFT_BACKTRACE=swift-backtrace=/usr/libexec/pods/swift-backtrace' '$root/usr/lib/systemd/user/pods.service' && chroot '$root' /usr/libexec/pods/swift-backtrace --help >/dev/null 2>&1"
check "playerctl (a user's tool, not a dependency) installs" inside apt-get install -y -qq --no-install-recommends playerctl
inside dpkg -L pods > "$work/files"
check "the copyright says GPL-3+, machine-readable, and names Debian's copy of the text" \
  bash -c "grep -qx 'License: GPL-3+' '$root/usr/share/doc/pods/copyright' && grep -q '^Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/' '$root/usr/share/doc/pods/copyright' && grep -q '/usr/share/common-licenses/GPL-3' '$root/usr/share/doc/pods/copyright' && test -f '$root/usr/share/common-licenses/GPL-3'"
check "the copyright carries the notices of what is linked in: GRDB, TOMLKit and toml++, swift-log, the argument parser, ICU" \
  bash -c "c='$root/usr/share/doc/pods/copyright'; grep -q 'Gwendal Rou' \$c && grep -q 'Jeff Lebrun' \$c && grep -q 'Mark Gillard' \$c && grep -q 'The SwiftLog Project' \$c && grep -q 'swift-argument-parser' \$c && grep -q 'UNICODE, INC. LICENSE AGREEMENT' \$c && grep -q 'Permission is hereby granted, free of charge' \$c"

# A private session bus inside the root; podsd activated by the first call, playing to a silent sink.
mkdir -p "$root/tmp/sample"
cp data/sample-podcast.xml data/sample-episode-1.mp3 data/sample-episode-2.ogg data/sample-artwork.png "$root/tmp/sample/"
cat > "$root/tmp/session.sh" <<'EOF'
set -e
export PODS_AUDIO_SINK="fakesink sync=true" XDG_RUNTIME_DIR=/tmp/runtime
mkdir -p -m 700 "$XDG_RUNTIME_DIR"
dbus-run-session -- sh -c '
  pods status | grep -qx "Stopped: nothing loaded" || { echo "pods status did not activate podsd"; exit 1; }
  pgrep -x podsd >/dev/null || { echo "no podsd"; exit 1; }
  pods subscribe file:///tmp/sample/sample-podcast.xml
  pods play 1
  for _ in $(seq 50); do pods status | grep -q "^Playing" && break; sleep 0.2; done
  pods status | grep -q "^Playing" || { pods status; echo "not playing within 10 s"; exit 1; }
  playerctl -p pods status | grep -qx Playing || { echo "playerctl does not see it playing"; exit 1; }
  playerctl -p pods metadata xesam:title
'
EOF
check "on a session bus: activation, the sample plays, playerctl answers" inside sh /tmp/session.sh

# The window: it links what the package brought (GTK 4, libadwaita) and, on an X server in the
# root (Xvfb, no desktop), opens its window: GtkApplication exports each window it shows on the bus.
check "pods-gtk runs: it links nothing the package did not bring" inside /usr/bin/pods-gtk --help
check "Xvfb (for the window's check, not a dependency) installs" inside apt-get install -y -qq --no-install-recommends xvfb
cat > "$root/tmp/window.sh" <<'EOF'
export XDG_RUNTIME_DIR=/tmp/runtime GDK_BACKEND=x11 GSK_RENDERER=cairo ADW_DISABLE_PORTAL=1 GTK_A11Y=none PODS_AUDIO_SINK="fakesink sync=true"
mkdir -p -m 700 "$XDG_RUNTIME_DIR"
# A display number Xvfb finds free: the machine's X servers (the window tests') share the abstract sockets.
Xvfb -displayfd 3 -nolisten tcp -screen 0 800x600x24 3>/tmp/display >/dev/null 2>&1 &
xvfb=$!
trap 'kill $xvfb 2>/dev/null' EXIT
for _ in $(seq 50); do [ -s /tmp/display ] && break; sleep 0.1; done
export DISPLAY=":$(head -n 1 /tmp/display)"
dbus-run-session -- sh -c '
  pods-gtk >/tmp/window.log 2>&1 &
  window=$!
  # Asked of this bus, not pgrep: the processes of the machine around the root are seen from inside it.
  # (A call to the window’s name before it owns it would have the bus start a second one.)
  owned() { dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
    org.freedesktop.DBus.NameHasOwner string:$1 2>/dev/null | grep -q "boolean true"; }
  for _ in $(seq 100); do
    owned org.pods.Pods.Window && dbus-send --session --print-reply --dest=org.pods.Pods.Window /org/pods/Pods/Window/window/1 \
      org.freedesktop.DBus.Introspectable.Introspect >/dev/null 2>&1 && found=yes && break
    sleep 0.1
  done
  [ -n "$found" ] || { echo "no window within 10 s"; cat /tmp/window.log; exit 1; }
  for _ in $(seq 50); do owned org.mpris.MediaPlayer2.pods && break; sleep 0.1; done
  owned org.mpris.MediaPlayer2.pods || { echo "the window did not start podsd"; exit 1; }
  kill $window 2>/dev/null || true
'
EOF
check "under Xvfb in the root the window opens and starts podsd" inside sh /tmp/window.sh
in_root() {  # the processes running in the root
  for process in /proc/[0-9]*; do [ "$(readlink "$process/root" 2>/dev/null)" = "$root" ] && echo "${process#/proc/}"; done
  return 0
}
for _ in $(seq 50); do [ -z "$(in_root)" ] && break; sleep 0.1; done
check "podsd left with its bus" test -z "$(in_root)"

check "apt-get remove pods" inside apt-get remove -y -qq pods
left=""
while read -r path; do [ -f "$root$path" ] && left+="$path "; done < "$work/files"
check "no file of the package is left ($left)" test -z "$left"

echo "package: $passed passed, $failed failed ($(( $(date +%s) - started )) s)"
[ "$failed" -eq 0 ]
