import PodsClient

/// A slider dragged asks for many positions (or volumes); only the latest
/// is sent, one call at a time.
@MainActor
final class SeekCoalescer {
    private var target: Double?
    private var sending = false

    func request(_ seconds: Double, send: @escaping @Sendable (Double) async throws(PlayerClient.Failure) -> Void) {
        target = seconds
        guard !sending else { return }
        sending = true
        Task {
            while let target {
                self.target = nil
                try? await send(target)
            }
            sending = false
        }
    }
}
