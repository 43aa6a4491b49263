import Foundation
import PodsDBus
import PodsSession

/// Builds the pages after the one just answered while the client reads
/// that one, so a client paging through the whole library never waits for
/// podsd to read its rows. Paging by cursor cannot name page n + 1 before
/// page n arrives; so podsd keeps `depth` pages ahead, and a client may ask
/// for "the k-th page after this cursor" (`page(_:skipping:build:)`) to
/// keep several requests in flight.
///
/// Holds at most `2 × depth` pages (those ahead, and those just answered,
/// whose `next` a request k pages on starts from). A page read ahead is
/// served once, to a request for it (same filter, cursor and size) within
/// `freshFor`; a page asked for again, and anything else, is built anew. A
/// page read ahead is as current as paging is anyway: each page is read
/// when it is built.
package actor PageReadAhead<Key: Hashable & Sendable, Reply: Sendable> {
    /// A built page: its reply and the key of the page after it (nil after the last).
    package struct Page: Sendable {
        var reply: Reply
        var next: Key?
    }

    package typealias Build = @Sendable (Key) async throws(DBusError) -> Page

    private struct Entry {
        let made: ContinuousClock.Instant
        let task: Task<Result<Page, DBusError>, Never>
        /// Answered already: kept for its `next` only.
        var served = false
    }

    private var pages: [Key: Entry] = [:]
    private var walk: Task<Void, Never>?
    private let depth: Int
    private let freshFor: Duration

    package init(depth: Int = 4, freshFor: Duration = .seconds(2)) {
        self.depth = max(1, depth)
        self.freshFor = freshFor
    }

    /// The page `skipping` pages after the one at `key` (0: that one), read
    /// ahead or built now; nil past the last page. Then builds the `depth`
    /// pages after it, one after another, while the client reads.
    package func page(_ key: Key, skipping: Int = 0, build: @escaping Build) async throws(DBusError) -> Reply? {
        let now = ContinuousClock.now
        pages = pages.filter { now - $0.value.made < freshFor }
        var key = key
        for _ in 0..<max(0, skipping) {
            guard let next = try await entry(key, build).task.value.get().next else { return nil }
            key = next
        }
        if pages[key]?.served == true { pages[key] = nil }  // asked again: read afresh
        let answer = entry(key, build)
        pages[key]?.served = true
        let page = try await answer.task.value.get()
        walk?.cancel()
        walk = Task { await readAhead(from: page.next, build) }
        return page.reply
    }

    /// Builds (or finds built) the `depth` pages from `key` on.
    private func readAhead(from key: Key?, _ build: @escaping Build) async {
        var key = key
        for _ in 0..<depth {
            guard let current = key, !Task.isCancelled else { return }
            guard case .success(let page) = await entry(current, build).task.value else { return }
            key = page.next
        }
    }

    /// The page at `key`, kept or started now.
    private func entry(_ key: Key, _ build: @escaping Build) -> Entry {
        if let kept = pages[key] { return kept }
        let entry = Entry(made: .now, task: Task {
            do throws(DBusError) { return .success(try await build(key)) } catch { return .failure(error) }
        })
        pages[key] = entry
        if pages.count > 2 * depth, let oldest = pages.min(by: { $0.value.made < $1.value.made })?.key {
            pages[oldest] = nil
        }
        return entry
    }
}
