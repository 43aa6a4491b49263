#!/usr/bin/env bash
# The suites that hold real time to a bound, run by ./scripts/test after the
# others, on the session bus it started. Two lanes run side by side, each one
# suite at a time: pipelines timed against the clock (playing), and processes
# timed against it (mostly waiting: starts, kills, timers, refreshes). Each
# lane is a process of its own, so TransferSchedulerTests counts only its own
# lane's transfers. LibraryScaleTests (MPRIS's p99 during a 50,000-episode
# listing) then runs alone. Side by side the lanes took 143 s where one after
# the other took 265 s.
#
#   Tests/realtime.sh          run them
#   Tests/realtime.sh --list   the suites, as one --filter/--skip pattern
set -uo pipefail
cd "$(dirname "$0")/.."
playing='FormatSwitchTests|PlaybackEngineTests|TrimSilenceTests|TimeStretchRenewalTests|PitchTests|ChapterServiceTests|PlayerCancellationTests|SlowCallTests|StalledPipelineTests|PipelineWorkerTests|OutputLossTests|SuspendInhibitTests|SleepGuardTests'
waiting='KillNineTests|BookmarkServiceTests|BackgroundRefreshTests|SleepTimerTests|SettingsServiceTests|MPRISSignalTests|LifecycleTests|NotificationTests|TransferSchedulerTests|StuckStreamTests|aLargeOPMLImportIsLinearAndBounded'
alone='LibraryScaleTests'
if [ "${1:-}" = --list ]; then echo "$playing|$waiting|$alone"; exit 0; fi
# swift test holds .build's lock for as long as it runs: the lanes run the test binary itself.
tests="$(swift build --show-bin-path)/PodsPackageTests.xctest"
lane() {  # lane NAME PATTERN: its lines marked with its name
  "$tests" --testing-library swift-testing --no-parallel --filter "$2" 2>&1 | sed -u "s/^/[$1] /"
  return "${PIPESTATUS[0]}"
}
lane playing "$playing" & playing_pid=$!
lane waiting "$waiting"; waiting_status=$?
wait "$playing_pid"; playing_status=$?
[ "$playing_status" -eq 0 ] && [ "$waiting_status" -eq 0 ] || exit 1
"$tests" --testing-library swift-testing --no-parallel --filter "$alone"
