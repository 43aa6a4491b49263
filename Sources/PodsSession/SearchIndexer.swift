import PodsConcurrency
import PodsLibrary

/// Puts what the library wrote into `pods find`'s index a batch at a time
/// (`Library.indexSearchText`), after a refresh or an import brings
/// episodes and at start, so that no write waits for the index; other
/// library work runs between batches.
package actor SearchIndexer {
    private let library: Library
    private var running = false
    private var again = false

    package init(library: Library) {
        self.library = library
    }

    /// Indexes what waits; returns at once (a run under way goes round once more).
    package nonisolated func poke() {
        Task { await catchUp() }
    }

    /// Indexes what waits, and returns when nothing does.
    package func catchUp() async {
        if running {
            again = true
            return
        }
        running = true
        repeat {
            again = false
            let library = library
            while let indexed = try? await LibraryWork.run({ () throws(LibraryError) in try library.indexSearchText() }), indexed > 0 {
                await Task.yield()
            }
        } while again
        running = false
    }
}
