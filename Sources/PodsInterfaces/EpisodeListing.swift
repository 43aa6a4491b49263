import Logging
import PodsConcurrency
import PodsDBus
import PodsLibrary
import PodsProtocol
import PodsSession
import Synchronization

/// The episode list, as `ListEpisodes` pages it and `StreamEpisodes`
/// writes it whole into a client's descriptor.
package enum EpisodeListing {
    /// One page: its reply body and the cursor after it (nil after the last).
    package struct Page: Sendable {
        var body: DBusWireBody
        var next: EpisodeCursor?
    }

    /// The page of up to `count` episodes after `cursor`. Items are written
    /// into the reply's bytes as SQLite reads the rows, and reading stops
    /// when the page is full.
    package static func page(_ library: Library, _ filter: EpisodeFilter, after cursor: EpisodeCursor?, count: Int) async throws(DBusError) -> Page {
        try await LibraryCall.run { () throws(LibraryError) in
            var page = WireReplyPage(count: count)
            var last: EpisodeCursor?
            try library.forEachEpisode(filter, after: cursor, limit: count + 1) { summary in
                guard page.add({ LibraryItemEncoding.summaryFields(&$0, summary) }) else { return false }
                last = summary.cursor
                return true
            }
            let next = page.hasMore ? last : nil
            return Page(body: page.body { next?.description ?? LibraryPaging.start }, next: next)
        }
    }

    // MARK: - Streaming

    /// The threads that write streams: a writer waits there while its
    /// reader is behind, so two slow readers hold two threads and a third
    /// stream waits its turn; nothing else ever waits on them. Started at
    /// the first stream.
    private static let writers = BlockingLane("pods.stream", width: 2, niceness: 5)

    /// Streams under way, and the most there may be: each holds its
    /// reader's descriptor and up to two pages, so one client cannot make
    /// podsd run out of descriptors or memory by asking for thousands.
    private static let streams = Mutex(0)
    package static let maximumStreams = 8
    /// The longest a stream may take, however slowly its reader reads.
    package static let streamDeadline: Duration = .seconds(300)

    /// Writes every page of `filter`'s list into `descriptor`, building the
    /// next page while the last is written, then closes it. Returns at once;
    /// a failure (the reader gone, or stalled for 30 s, or the whole stream
    /// past `streamDeadline`) is logged and ends the stream early, which the
    /// reader sees as a list without its last page. With `maximumStreams`
    /// under way it is refused (`LimitsExceeded`).
    package static func stream(_ library: Library, _ filter: EpisodeFilter, into descriptor: DBusFileDescriptor,
                       logger: Logger) throws(DBusError) {
        let admitted = streams.withLock { count in
            guard count < maximumStreams else { return false }
            count += 1
            return true
        }
        guard admitted else {
            throw DBusError(name: DBusError.Name.limitsExceeded,
                            message: "\(maximumStreams) episode streams are under way; try again when one has ended")
        }
        let writer = DBusBodyStream.Writer(descriptor)
        let started = ContinuousClock.now
        Task {
            defer { streams.withLock { $0 -= 1 } }
            do throws(DBusError) {
                var page = try await Self.page(library, filter, after: nil, count: LibraryPaging.maxItems)
                while true {
                    let body = page.body
                    async let written: DBusError? = writers.run {
                        do throws(DBusError) { try writer.write(body) } catch { return error }
                        return nil
                    }
                    let following: Page? = if let next = page.next {
                        try await Self.page(library, filter, after: next, count: LibraryPaging.maxItems)
                    } else {
                        nil
                    }
                    if let failure = await written { throw failure }
                    guard let following else { break }
                    guard ContinuousClock.now - started < streamDeadline else {
                        throw DBusError.failed("the reader took longer than \(streamDeadline.components.seconds) s")
                    }
                    page = following
                }
            } catch {
                logger.notice("an episode stream ended early: \(error.message)")
            }
        }
    }
}
