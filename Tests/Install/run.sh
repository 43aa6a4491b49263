#!/usr/bin/env bash
# Installs Pods into a temporary prefix (the debug build) and checks what a
# desktop needs: every file in place, the desktop file and the systemd unit
# valid, the man pages found, the completions readable, D-Bus activation
# (with podsd not running, `pods status` and `playerctl -p pods status` start
# it from the prefix, on a private bus whose service directory is there),
# and an uninstall that removes exactly what was installed.
set -uo pipefail
cd "$(dirname "$0")/../.."
prefix="$(mktemp -d)"
home="$(mktemp -d)"
bus_pid=""
cleanup() {
  [ -n "$bus_pid" ] && kill -9 "$bus_pid" 2>/dev/null
  pkill -9 -f "^$prefix/bin/podsd" 2>/dev/null
  rm -rf "$prefix" "$home"
}
trap cleanup EXIT
source Tests/check.sh

check "install --debug" env PODS_INSTALL_QUIET=1 ./scripts/install --prefix "$prefix" --debug
for file in bin/podsd bin/pods bin/pods-gtk share/dbus-1/services/org.mpris.MediaPlayer2.pods.service share/dbus-1/services/org.pods.Pods.service \
            share/dbus-1/services/org.pods.Pods.Window.service lib/systemd/user/pods.service \
            share/applications/pods.desktop share/applications/pods-ui.desktop share/icons/hicolor/scalable/apps/pods.svg \
            share/bash-completion/completions/pods share/zsh/site-functions/_pods share/fish/vendor_completions.d/pods.fish \
            share/man/man1/pods.1 share/man/man1/podsd.1 share/man/man1/pods-gtk.1 share/metainfo/org.pods.Pods.metainfo.xml libexec/pods/swift-backtrace; do
  check "installs $file" test -s "$prefix/$file"
done
for name in org.mpris.MediaPlayer2.pods org.pods.Pods; do
  check "the activation file of $name names the installed podsd" \
    grep -qx "Exec=$prefix/bin/podsd" "$prefix/share/dbus-1/services/$name.service"
  check "the activation file of $name names the systemd unit" \
    grep -qx "SystemdService=pods.service" "$prefix/share/dbus-1/services/$name.service"
done
for desktop in pods pods-ui; do
  check "$desktop.desktop is valid" desktop-file-validate "$prefix/share/applications/$desktop.desktop"
done
check "pods.desktop opens the window, not a terminal" \
  bash -c "grep -qx 'Exec=$prefix/bin/pods-gtk' '$prefix/share/applications/pods.desktop' && grep -qx 'Terminal=false' '$prefix/share/applications/pods.desktop'"
check "pods-ui.desktop opens pods ui in a terminal" \
  bash -c "grep -qx 'Exec=$prefix/bin/pods ui' '$prefix/share/applications/pods-ui.desktop' && grep -qx 'Terminal=true' '$prefix/share/applications/pods-ui.desktop'"
check "the window's activation file names the installed pods-gtk" \
  grep -qx "Exec=$prefix/bin/pods-gtk --gapplication-service" "$prefix/share/dbus-1/services/org.pods.Pods.Window.service"
check "man finds pods-gtk(1)" env MANPATH="$prefix/share/man:" man -w pods-gtk
check "the AppStream metainfo is valid" appstreamcli validate --no-net "$prefix/share/metainfo/org.pods.Pods.metainfo.xml"
check "the metainfo names Pods' license, GPL-3.0-or-later" grep -qx '  <project_license>GPL-3.0-or-later</project_license>' "$prefix/share/metainfo/org.pods.Pods.metainfo.xml"
check "the metainfo's release is pods --version" grep -q "<release version=\"$("$prefix/bin/pods" --version)\"" "$prefix/share/metainfo/org.pods.Pods.metainfo.xml"
check "the unit is valid" env MANPATH="$prefix/share/man:" systemd-analyze verify "$prefix/lib/systemd/user/pods.service"
check "the unit is Type=dbus with the bus name" \
  bash -c "grep -qx 'Type=dbus' '$prefix/lib/systemd/user/pods.service' && grep -qx 'BusName=org.mpris.MediaPlayer2.pods' '$prefix/lib/systemd/user/pods.service'"
check "man finds podsd(1)" env MANPATH="$prefix/share/man:" man -w podsd
check "the bash completion reads" bash -n "$prefix/share/bash-completion/completions/pods"

# A private session bus that activates services from the prefix, with a
# home of its own for the podsd it starts.
config="$home/bus.conf"
cat > "$config" <<CONF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:tmpdir=/tmp</listen>
  <servicedir>$prefix/share/dbus-1/services</servicedir>
  <policy context="default"><allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/><allow own="*"/></policy>
</busconfig>
CONF
address_file="$home/address"
HOME="$home" XDG_DATA_HOME="$home/data" XDG_CACHE_HOME="$home/cache" XDG_CONFIG_HOME="$home/config" \
  PODS_AUDIO_SINK="fakesink sync=true" dbus-daemon --config-file="$config" --nofork --print-address=1 > "$address_file" 2> "$home/bus.log" &
bus_pid=$!
disown
for _ in $(seq 50); do [ -s "$address_file" ] && break; sleep 0.1; done
export DBUS_SESSION_BUS_ADDRESS="$(head -1 "$address_file")"
check "podsd is not running before" bash -c "! pgrep -f '^$prefix/bin/podsd' >/dev/null"
check "pods status starts podsd through D-Bus activation" bash -c "'$prefix/bin/pods' status | grep -qx 'Stopped: nothing loaded'"
check "the podsd running is the installed one" pgrep -f "^$prefix/bin/podsd"
check "playerctl sees it" bash -c "playerctl -p pods status | grep -qx Stopped"
check "it wrote its config file under XDG_CONFIG_HOME" test -s "$home/config/pods/config.toml"
# playerctl (like the desktop applets) lists the players that run and never
# activates one: with podsd stopped it finds none, which is why the README
# says to enable the unit for media keys before the first pods command.
pkill -TERM -f "^$prefix/bin/podsd"
for _ in $(seq 50); do pgrep -f "^$prefix/bin/podsd" >/dev/null || break; sleep 0.1; done
check "podsd stopped" bash -c "! pgrep -f '^$prefix/bin/podsd' >/dev/null"
check "playerctl does not start a player" bash -c "playerctl -p pods status 2>&1 | grep -q 'No players found'"
check "pods playing a file starts it again" bash -c "'$prefix/bin/pods' play '$PWD/data/sample-episode-1.mp3' && playerctl -p pods status | grep -qx Playing"
# The library answers under a name of its own (org.pods.Pods), which activates podsd too.
pkill -TERM -f "^$prefix/bin/podsd"
for _ in $(seq 50); do pgrep -f "^$prefix/bin/podsd" >/dev/null || break; sleep 0.1; done
check "pods podcasts starts podsd through the library's name" \
  bash -c "'$prefix/bin/pods' podcasts >/dev/null && pgrep -f '^$prefix/bin/podsd' >/dev/null && playerctl -p pods status | grep -qx Stopped"
# A crash, as systemd starts podsd (the unit's environment): the runtime linked into podsd runs the
# installed backtrace helper, and the backtrace reaches what the journal keeps.
pkill -TERM -f "^$prefix/bin/podsd"
for _ in $(seq 50); do pgrep -f "^$prefix/bin/podsd" >/dev/null || break; sleep 0.1; done
unit_environment="$(sed -n 's/^Environment=//p' "$prefix/lib/systemd/user/pods.service")"
check "the unit names the installed backtrace helper" \
  test "$unit_environment" = "SWIFT_BACKTRACE=swift-backtrace=$prefix/libexec/pods/swift-backtrace"
env "$unit_environment" "$prefix/bin/podsd" --data-dir "$home/crash/data" --cache-dir "$home/crash/cache" --config "$home/crash.toml" \
  > "$home/crash.out" 2>&1 &
crashing=$!
for _ in $(seq 50); do playerctl -p pods status >/dev/null 2>&1 && break; sleep 0.1; done
kill -SEGV "$crashing"
wait "$crashing" 2>/dev/null || true
check "a crash leaves its backtrace" grep -q 'Thread 0 "podsd" crashed:' "$home/crash.out"
kill -9 "$bus_pid" 2>/dev/null; bus_pid=""
for _ in $(seq 50); do pgrep -f "^$prefix/bin/podsd" >/dev/null || break; sleep 0.1; done
check "podsd leaves with its bus" bash -c "! pgrep -f '^$prefix/bin/podsd' >/dev/null"

check "uninstall" ./scripts/uninstall --prefix "$prefix"
check "uninstall leaves no file behind" bash -c "[ -z \"\$(find '$prefix' -type f)\" ]"

echo "install: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
