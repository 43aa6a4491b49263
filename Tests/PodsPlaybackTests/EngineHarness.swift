import Foundation
import PodsPlayback
import Synchronization

/// Drives one engine (by default into `fakesink sync=true`: real time, no
/// sound card) and collects its events.
final class EngineHarness {
    let engine: PlaybackEngine
    private let received = ReceivedEvents()
    private let collector: Task<Void, Never>

    init(audioSink: String = "fakesink sync=true", stallLimit: Duration = .seconds(10)) throws {
        let engine = try PlaybackEngine(audioSink: audioSink, stallLimit: stallLimit)
        self.engine = engine
        let events = engine.events, received = received
        collector = Task { for await event in events { received.append(event) } }
    }

    /// Feeds events to the engine until one matches; nil after `timeout`.
    func waitFor(_ timeout: Duration = .seconds(10), _ matches: (PlaybackEvent) -> Bool) async -> PlaybackEvent? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            guard let message = received.takeFirst() else {
                try? await Task.sleep(for: .milliseconds(10))
                continue
            }
            if let event = engine.handle(message), matches(event) { return event }
        }
        return nil
    }

    /// The duration, once the pipeline knows it (it may follow preroll).
    func duration() async -> Duration? {
        _ = await waitFor(.seconds(3)) { _ in engine.duration() != nil }
        return engine.duration()
    }

    func waitUntilSettled() async {
        while engine.isSettling {
            guard await waitFor(.seconds(10), { if case .asyncDone = $0 { true } else { false } }) != nil else { return }
        }
    }

    deinit {
        engine.shutdown()
        collector.cancel()
    }
}

final class ReceivedEvents: Sendable {
    private let events = Mutex<[PipelineMessage]>([])
    func append(_ event: PipelineMessage) { events.withLock { $0.append(event) } }
    func takeFirst() -> PipelineMessage? { events.withLock { $0.isEmpty ? nil : $0.removeFirst() } }
}

func gap(_ a: Duration, _ b: Duration) -> Duration { a > b ? a - b : b - a }
