/// Polls `condition` every 50 ms until it holds; throws (failing the test)
/// after `timeout`. The default is long because the parallel suite can
/// starve a real-time player for seconds (CI once saw 2 s of playback take
/// over 5); a condition that holds returns at once, so only a failing run
/// waits it out.
public func waitFor(timeout: Duration = .seconds(20), _ condition: () async -> Bool) async throws {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if await condition() { return }
        try await Task.sleep(for: .milliseconds(50))
    }
    // Once more at the end: a sleep the pool ran late may have carried the loop past the deadline unchecked.
    if await condition() { return }
    throw TestSupportError("condition not met within \(timeout)")
}
