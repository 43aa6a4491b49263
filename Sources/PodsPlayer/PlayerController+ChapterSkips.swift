/// Chapters the podcast's `skip-chapters` names are played past: when
/// playback reaches one (the poll arms a timer for the exact moment, as
/// for the outro) it jumps to the end of it, or ends the track when the
/// skipped chapters run to its end. A chapter the listener jumps into
/// (`pods chapter N`, a seek) plays: that was their choice.
extension PlayerController {
    /// How far into a skipped chapter playback may be and still be taken
    /// past it (a poll after its start, a timer a little late), in seconds of the episode.
    static let skipEntry = 1.0

    /// Plays past a skipped chapter just begun at `position`; otherwise arms
    /// the timer when the next one begins within a second and a half.
    func checkSkippedChapters(at position: Duration) {
        guard state.status == .playing, state.canSeek, !timeline.skipped.isEmpty else { return }
        let seconds = position / .seconds(1)
        if let stretch = timeline.skippedStretch(enteredAt: seconds, within: Self.skipEntry), stretch.start != chosenSkippedChapter {
            cancelSkipTimer()
            guard let end = stretch.end, state.track?.duration.map({ .seconds(end) < $0 }) ?? true else { return endOfTrack() }
            return jump(to: .seconds(end))
        }
        guard skipTimer == nil, let next = timeline.nextSkipped(after: seconds) else { return }
        let left = (.seconds(next.start) - position) / max(state.rate, 0.1)
        guard left < .milliseconds(1500) else { return }
        skipTimer = Task { [weak self] in
            try? await Task.sleep(for: left)
            guard !Task.isCancelled else { return }
            await self?.skipTimerFired()
        }
    }

    /// Goes back `amount` (smart rewind, after a pause): never before the
    /// start, nor back into a skipped chapter (it stops at that chapter's end).
    public func rewind(by amount: Duration) {
        guard state.track != nil, state.canSeek, amount > .zero else { return }
        let here = position()
        var target = max(.zero, here - amount)
        if let stretch = timeline.skippedStretch(containing: target / .seconds(1)), let end = stretch.end, .seconds(end) <= here {
            target = .seconds(end)
        }
        guard target < here else { return }
        jump(to: target)
    }

    /// A jump to `target`: a skipped chapter it lands in is the listener's choice, and plays.
    func noteJump(to target: Duration) {
        cancelSkipTimer()
        chosenSkippedChapter = timeline.skippedStretch(containing: target / .seconds(1))?.start
    }

    func cancelSkipTimer() {
        skipTimer?.cancel()
        skipTimer = nil
    }

    private func skipTimerFired() {
        skipTimer = nil
        checkSkippedChapters(at: position())
    }
}
