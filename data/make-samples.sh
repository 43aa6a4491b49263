#!/usr/bin/env bash
# Regenerates the bundled sample episodes from free tools (espeak-ng, sox,
# lame, oggenc). The committed files came from this script; nothing calls it
# at build or test time.
set -euo pipefail
cd "$(dirname "$0")"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

make_episode() {  # name seconds title text
    local name=$1 seconds=$2 title=$3 text=$4
    espeak-ng -s 150 -w "$work/voice.wav" "$text"
    sox "$work/voice.wav" -r 22050 -c 1 "$work/voice22.wav"
    # A quiet chord under the voice, padded to the episode's length.
    sox -n -r 22050 -c 1 "$work/bed.wav" synth "$seconds" sine 220 sine 277 sine 330 \
        tremolo 0.2 40 fade 2 "$seconds" 3 gain -30
    sox -m "$work/voice22.wav" "$work/bed.wav" "$work/$name.wav" trim 0 "$seconds" norm -3
    lame --quiet -m m -b 32 --tt "$title" --ta "Pods" --tl "Pods Sample Podcast" \
        "$work/$name.wav" "$name.mp3"
    oggenc --quiet -q 0 -t "$title" -a "Pods" -l "Pods Sample Podcast" \
        -o "$name.ogg" "$work/$name.wav"
}

make_episode sample-episode-1 90 "Episode 1: Welcome to Pods" \
  "Welcome to Pods, the podcast player for the Linux desktop. This is a sample episode. \
Your media keys, playerctl, and the GNOME and KDE media controls all drive Pods through M P R I S. \
Try pausing now, then seek forward thirty seconds, or change the speed to one and a half. \
The rest of this episode is a quiet chord, so you can hear where the position goes."
make_episode sample-episode-2 75 "Episode 2: Seeking and Speed" \
  "This is the second sample episode of Pods. Pods keeps your place when you pause, \
plays faster without changing the pitch of the voice, and tells every desktop what it is playing."
# Keep only the formats the README and tests name.
rm -f sample-episode-1.ogg sample-episode-2.mp3
# The podcast's artwork (what desktops show beside the episode): the icon, 512 px square, as PNG.
gst-launch-1.0 -q filesrc location=pods.svg ! rsvgdec ! videoconvert ! videoscale \
  ! video/x-raw,width=512,height=512 ! pngenc compression-level=9 ! filesink location=sample-artwork.png
