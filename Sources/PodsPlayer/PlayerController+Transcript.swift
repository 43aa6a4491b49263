/// The transcript line that plays, for MPRIS clients (`PlayerState.cue`):
/// it changes as playback reaches each line (a timer for the next one, at
/// the rate), at most twice a second, and never while paused or stopped.
extension PlayerController {
    /// Lines change no more often than this.
    static let cueInterval = Duration.milliseconds(500)

    /// Gives the loaded track its timed transcript (ignored when `trackID`
    /// is no longer loaded).
    public func setTranscript(_ lines: [TranscriptLine], for trackID: TrackID) {
        guard state.track?.trackID == trackID else { return }
        transcript = TranscriptTimeline(lines)
        publish()
    }

    func clearTranscript() {
        transcript = TranscriptTimeline()
        state.cue = nil
        cancelCueTimer()
    }

    /// While playing: the line at `position` becomes the cue (when the last
    /// change is half a second past), and a timer waits for the next.
    /// Otherwise nothing changes and no timer runs.
    func followTranscript(at position: Duration) {
        guard state.status == .playing, !transcript.isEmpty else { return cancelCueTimer() }
        let seconds = position / .seconds(1)
        let now = ContinuousClock.now
        let due = lastCueChange.map { $0 + Self.cueInterval } ?? now
        let playing = transcript.index(at: seconds)
        if playing.map({ $0 + 1 }) != state.cue?.index {
            if now >= due {
                state.cue = playing.map(transcript.cue)
                lastCueChange = now
            } else {
                return armCueTimer(after: due - now)
            }
        }
        guard let next = transcript.nextChange(after: seconds) else { return cancelCueTimer() }
        let wait = (.seconds(next) - position) / max(state.rate * (engine?.rateBoost ?? 1), 0.1)
        armCueTimer(after: max(wait, (lastCueChange ?? now) + Self.cueInterval - now))
    }

    private func armCueTimer(after wait: Duration) {
        cueTimer?.cancel()
        cueTimer = Task { [weak self] in
            try? await Task.sleep(for: max(wait, .milliseconds(10)))
            guard !Task.isCancelled else { return }
            await self?.cueTimerFired()
        }
    }

    private func cueTimerFired() {
        cueTimer = nil
        let before = state.cue
        followTranscript(at: position())
        if state.cue != before { publish() }
    }

    func cancelCueTimer() {
        cueTimer?.cancel()
        cueTimer = nil
    }
}
