import Foundation
import PodsDBus

/// Builds the page after the one just answered while the client reads that
/// one, so a client paging through the whole library waits for podsd only
/// once: paging by cursor cannot ask for page n + 1 before page n arrives.
///
/// Holds one page at most, and serves it only to the request it was made
/// for (same filter, cursor and size) within `freshFor`; anything else is
/// built anew. A page read ahead is as current as paging is anyway: each
/// page is read when it is built.
actor PageReadAhead<Key: Hashable & Sendable, Reply: Sendable> {
    private var ahead: (key: Key, made: ContinuousClock.Instant, task: Task<Result<Page, DBusError>, Never>)?
    private let freshFor: Duration

    /// A built page: its reply and the key of the page after it (nil after the last).
    struct Page: Sendable {
        var reply: Reply
        var next: Key?
    }

    init(freshFor: Duration = .seconds(2)) { self.freshFor = freshFor }

    /// The page for `key`, read ahead or built now; then starts building the next one.
    func page(_ key: Key, build: @escaping @Sendable (Key) async throws(DBusError) -> Page) async throws(DBusError) -> Reply {
        let result: Result<Page, DBusError>
        if let ahead, ahead.key == key, ContinuousClock.now - ahead.made < freshFor {
            self.ahead = nil
            result = await ahead.task.value
        } else {
            ahead?.task.cancel()
            ahead = nil
            do throws(DBusError) { result = .success(try await build(key)) } catch { result = .failure(error) }
        }
        let page = try result.get()
        if let next = page.next, ahead == nil {
            ahead = (next, .now, Task {
                do throws(DBusError) { return .success(try await build(next)) } catch { return .failure(error) }
            })
        }
        return page.reply
    }
}
