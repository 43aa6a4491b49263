#!/usr/bin/env bash
# The suites that hold real time to a bound, run by ./scripts/test after the
# others, on the session bus it started. Three lanes run side by side, each
# one suite at a time: pipelines timed against the clock (playing), more
# pipelines and the timers (timers), and processes timed against it
# (processes: starts, kills, stuck streams, settings, the window, and the cache's faults,
# whose seeks at 3× are awaited within seconds: in the parallel suites one
# once never landed). They mostly wait: the
# three together keep the two cores about two-thirds busy. Each lane is a
# process of its own, so TransferSchedulerTests counts only its own lane's
# transfers. LibraryScaleTests (MPRIS's p99 during a 50,000-episode listing)
# then runs alone. One after the other the suites took 265 s, in two lanes
# 143–188 s, in three about 130 s.
#
#   Tests/realtime.sh          run them
#   Tests/realtime.sh --list   the suites, as one --filter/--skip pattern
set -uo pipefail
cd "$(dirname "$0")/.."
playing='FormatSwitchTests|TranscriptFollowServiceTests|ChapterSkipServiceTests|SmartRewindServiceTests|TrimSilenceTests|TimeStretchRenewalTests|StalledPipelineTests|ChapterServiceTests|PipelineWorkerTests|SlowCallTests|PlayerCancellationTests|PitchTests'
timers='PlaybackEngineTests|OutputLossTests|SuspendInhibitTests|SleepGuardTests|BackgroundRefreshTests|SleepTimerTests|MPRISSignalTests|BookmarkReloadTests'
processes='WindowTests|CacheFaultTests|KillNineTests|BookmarkServiceTests|ListeningLogServiceTests|StuckStreamTests|SettingsServiceTests|LifecycleTests|NotificationTests|TransferSchedulerTests|aLargeOPMLImportIsLinearAndBounded'
alone='LibraryScaleTests'
if [ "${1:-}" = --list ]; then echo "$playing|$timers|$processes|$alone"; exit 0; fi
# swift test holds .build's lock for as long as it runs: the lanes run the test binary itself.
tests="$(swift build --show-bin-path)/PodsPackageTests.xctest"
lane() {  # lane NAME PATTERN: its lines marked with its name
  "$tests" --testing-library swift-testing --no-parallel --filter "$2" 2>&1 | sed -u "s/^/[$1] /"
  return "${PIPESTATUS[0]}"
}
lane playing "$playing" & playing_pid=$!
lane timers "$timers" & timers_pid=$!
lane processes "$processes"; processes_status=$?
wait "$playing_pid"; playing_status=$?
wait "$timers_pid"; timers_status=$?
[ "$playing_status" -eq 0 ] && [ "$timers_status" -eq 0 ] && [ "$processes_status" -eq 0 ] || exit 1
"$tests" --testing-library swift-testing --no-parallel --filter "$alone"
