import PodsLibrary

/// The listener's edits of the queue and of played marks, for every
/// interface alike (`org.pods.Library2`, MPRIS `TrackList`). Each returns
/// once the library's followers have heard of it, so the caller's answer
/// comes after the signal and after `CanGoNext` follows.
package struct LibraryEdits: Sendable {
    let library: Library

    package init(library: Library) { self.library = library }

    /// Queues `ids` at `index` (nil: the end), in their order.
    package func enqueue(_ ids: [Int64], at index: Int?) async throws(SessionError) {
        try await edit { library throws(LibraryError) in try library.enqueue(ids, at: index) }
    }

    package func dequeue(_ id: Int64) async throws(SessionError) {
        try await edit { library throws(LibraryError) in try library.dequeue(id) }
    }

    package func move(_ id: Int64, to index: Int) async throws(SessionError) {
        try await edit { library throws(LibraryError) in try library.moveInQueue(id, to: index) }
    }

    package func clearQueue() async throws(SessionError) {
        try await edit { library throws(LibraryError) in try library.clearQueue() }
    }

    /// Marks the episode played or unplayed.
    package func mark(_ id: Int64, played: Bool) async throws(SessionError) {
        try await edit { library throws(LibraryError) in try library.markCompleted(id, played) }
    }

    private func edit(_ body: @escaping @Sendable (Library) throws(LibraryError) -> Void) async throws(SessionError) {
        try await LibraryWork.edit(library, body)
    }
}
