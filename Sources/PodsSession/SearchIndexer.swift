import PodsConcurrency
import PodsLibrary

/// Puts what the library wrote into `pods find`'s index (`Library.indexSearchText`)
/// once the writes have gone quiet: `quiet` after the last episode a refresh
/// or an import brought (and at start), in small batches with a pause
/// between, so that neither those writes nor a play's progress wait for the
/// index. A search indexes what still waits first, so nothing is missed.
package actor SearchIndexer {
    private let library: Library
    /// How long after the last change indexing begins.
    static let quiet = Duration.seconds(2)
    /// Episodes a batch (one short write) and the pause after each.
    static let batch = 50
    static let pause = Duration.milliseconds(25)
    private var scheduled: Task<Void, Never>?

    package init(library: Library) {
        self.library = library
    }

    /// Indexes what waits, `quiet` after the last poke.
    package nonisolated func poke() {
        Task { await schedule() }
    }

    private func schedule() {
        scheduled?.cancel()
        scheduled = Task { [library] in
            try? await Task.sleep(for: Self.quiet)
            while !Task.isCancelled,
                  let indexed = try? await LibraryWork.run({ () throws(LibraryError) in try library.indexSearchText(batch: Self.batch) }),
                  indexed > 0 {
                try? await Task.sleep(for: Self.pause)
            }
        }
    }
}
