/// Reads of one thing from podsd, one at a time: a change announced during
/// a read asks for one more read after it, never for a read beside it, so
/// what is shown is never older than the last announcement.
@MainActor
final class SerialRead {
    private var running = false
    private var again = false

    func request(_ read: @escaping @MainActor () async -> Void) {
        guard !running else { again = true; return }
        running = true
        Task {
            repeat {
                again = false
                await read()
            } while again
            running = false
        }
    }
}
