import Foundation
import Logging
import PodsHTTP
import PodsLibrary
import PodsPlayback

/// One episode's range cache while it is in use: the sparse scratch file,
/// which of its bytes are written, and two download lanes that fetch the
/// gaps with bounded HTTP Range requests.
///
/// - The **urgent** lane fetches what a blocked reader needs; the
///   **read-ahead** lane keeps the bytes after the reader cached (and, for a
///   download, fetches every gap). Jobs reserve their span, so the lanes never
///   ask for the same byte, and nothing written is asked for again.
/// - Bytes are readable as soon as they are written; they are recorded in the
///   library only after `fdatasync` (every `saveEveryBytes` or two seconds,
///   at the end of a job and on close).
/// - Every gap fetch carries `If-Range` and its answer is checked against the
///   stored ETag and length: a change ends this cache (`.changed`), and the
///   owner opens a fresh one and restarts the pipeline.
public final class EpisodeCache: RandomAccessMedia, @unchecked Sendable {
    // @unchecked Sendable, proven: the `let`s are Sendable or never mutated
    // (`file` is a Sendable wrapper of a descriptor used with pread/pwrite);
    // every `var` is touched only with `condition` locked, and `persistLock`
    // orders the saves. The lanes are threads of this object, never the
    // cooperative pool.

    /// What an episode cache tells its owner, from its download threads.
    enum Event: Sendable {
        /// Every byte is on disk and recorded.
        case completed
        /// The file on the server changed: this cache is void.
        case changed
        /// The bytes cannot come (a dead server, a full disk).
        case failed(CacheError)
    }

    /// Sizes and limits of the download jobs.
    struct Tuning: Sendable {
        /// The probe that learns the length and validators, and serves typefind.
        var probeBytes: Int64 = 64 * 1024
        /// A read far from the last one fetches this much, aligned down to `alignment`.
        var randomMissBytes: Int64 = 64 * 1024
        var alignment: Int64 = 16 * 1024
        /// Reads at or after the previous one (or this far behind) are sequential.
        var sequentialWindow: Int64 = 256 * 1024
        var sequentialJobBytes: Int64 = 256 * 1024
        /// How far ahead of the reader to keep the bytes cached, when the
        /// episode's duration is not known (about a minute at 64 kbit/s).
        var readAheadBytes: Int64 = 512 * 1024
        /// With a known duration: this much listening time ahead, within
        /// `readAheadRange`.
        var readAheadTime: Double = 90
        var readAheadRange: ClosedRange<Int64> = 256 * 1024...8 * 1024 * 1024
        /// The end of the file is fetched whole: typefind, Ogg and MP4 read it first.
        var tailBytes: Int64 = 64 * 1024
        /// Job size while downloading the whole episode.
        var fillJobBytes: Int64 = 1024 * 1024
        /// How often written bytes are made durable and recorded: a kill -9
        /// loses the record of at most this much, which is fetched again.
        var saveEveryBytes: Int64 = 128 * 1024
        var saveEvery: Duration = .seconds(1)
        /// Failed requests in a row before reads fail.
        var maximumRetries = 4
    }

    public let episodeID: Int64
    /// The longest file a cache takes (64 GiB): a longer length from a server streams without one.
    public static let maximumLength: Int64 = 64 << 30
    public let length: Int64
    public let supportsRandomAccess: Bool
    let file: ScratchFile
    /// The enclosure URL it fetches from.
    let url: String
    private let http: HTTPClient
    private let library: Library
    private let tuning: Tuning
    private let onEvent: @Sendable (Event) -> Void
    private let logger: Logger
    private let condition = NSCondition()
    private let persistLock = NSLock()

    // Guarded by `condition`:
    private var record: CachedMedia
    private var written: ByteRanges
    private var durable: ByteRanges
    private var reserved = ByteRanges()
    private var urgentJobs: [Range<Int64>] = []
    private var readAheadJobs: [Range<Int64>] = []
    private var lastReadEnd: Int64 = 0
    private var waitingReaders = 0
    private var closed = false
    private var changed = false
    private var failure: CacheError?
    private var filling = false
    /// The read-ahead the duration gives, and whether the network is metered (then less).
    private var fullReadAheadBytes: Int64
    private var metered = false
    private var lanesStarted = false
    private var runningLanes = 0
    private var bytesSinceSave: Int64 = 0
    private var lastSave = ContinuousClock.now
    private var failuresInARow = 0
    private var retryAfter: ContinuousClock.Instant?
    private var completionReported = false
    /// `tuning.readAheadBytes`, or the bytes of `readAheadTime` once the duration is known.
    private var readAheadBytes: Int64
    /// The record has news the library lacks (validators, final URL, a new cache).
    private var recordDirty: Bool

    init(record: CachedMedia, file: ScratchFile, url: String, http: HTTPClient, library: Library, tuning: Tuning,
         logger: Logger, onEvent: @escaping @Sendable (Event) -> Void) {
        self.logger = logger
        self.episodeID = record.episodeId
        self.length = record.length
        self.supportsRandomAccess = record.acceptsRanges
        self.record = record
        self.written = ByteRanges(record.ranges)
        self.durable = written
        self.completionReported = record.complete
        self.recordDirty = record.ranges.isEmpty
        self.readAheadBytes = tuning.readAheadBytes
        self.fullReadAheadBytes = tuning.readAheadBytes
        self.file = file
        self.url = url
        self.http = http
        self.library = library
        self.tuning = tuning
        self.onEvent = onEvent
    }

    // MARK: - State

    /// True while a reader waits for bytes that are not there yet.
    public var isBuffering: Bool { locked { waitingReaders > 0 } }

    /// The share of the file on disk, 0...1.
    public var cachedFraction: Double { locked { length > 0 ? Double(written.count) / Double(length) : 0 } }

    public var isComplete: Bool { locked { written.contains(0..<length) } }

    /// The error that stopped the downloads, if one did.
    public var error: CacheError? { locked { failure } }

    /// Whether the server's file changed, which voided this cache.
    var isChanged: Bool { locked { changed } }

    /// The record as last saved, with the ranges written so far.
    var snapshot: CachedMedia {
        locked {
            var media = record
            media.ranges = written.ranges
            return media
        }
    }

    private func locked<T>(_ body: () -> T) -> T {
        condition.lock()
        defer { condition.unlock() }
        return body()
    }

    // MARK: - Using it

    /// Downloads every missing byte (the episode becomes a download).
    func fillAll() {
        locked {
            guard !filling else { return }
            filling = true
            startLanes()
            condition.broadcast()
        }
    }

    /// Stops fetching what no reader asked for (a download that waits);
    /// reads still fetch what they need.
    func stopFilling() {
        locked { filling = false }
    }

    /// Makes the read-ahead a span of listening time: `readAheadTime`
    /// seconds at this episode's average bitrate.
    func setDuration(_ seconds: Double) {
        guard seconds.isFinite, seconds > 1 else { return }
        // Clamped as a Double, then converted: a server's length over a short duration can exceed Int64.
        let bytes = min(max(Double(length) / seconds * tuning.readAheadTime, Double(tuning.readAheadRange.lowerBound)),
                        Double(tuning.readAheadRange.upperBound))
        locked {
            fullReadAheadBytes = Int64(bytes)
            if !metered { readAheadBytes = fullReadAheadBytes }
        }
    }

    /// On a metered network the read-ahead is the least that plays on
    /// smoothly (`readAheadRange`'s lower bound), not a minute and a half.
    func setMetered(_ metered: Bool) {
        locked {
            self.metered = metered
            readAheadBytes = metered ? min(fullReadAheadBytes, tuning.readAheadRange.lowerBound) : fullReadAheadBytes
        }
    }

    /// Marks the cache an explicit download (never evicted), or not.
    func setPinned(_ pinned: Bool) {
        locked {
            record.pinned = pinned
            recordDirty = true
        }
        persist()
    }

    /// Ends the downloads (saving what they wrote) and every read.
    func close() {
        let needsSave = locked {
            closed = true
            condition.broadcast()
            return !lanesStarted
        }
        if needsSave { persist() }
    }

    /// Closes and waits (up to `timeout`) for the downloads to stop and
    /// save; blocks, so call it from a thread of its own.
    func closeAndWait(timeout: Duration = .seconds(3)) {
        close()
        waitForLanes(until: Date(timeIntervalSinceNow: Double(timeout.components.seconds)))
    }

    /// Waits until the downloads stopped and saved, or `deadline`; blocks.
    func waitForLanes(until deadline: Date) {
        locked {
            while runningLanes > 0, condition.wait(until: deadline) {}
        }
    }

    /// Queues the last bytes of the file for the read-ahead lane: every
    /// format's reader looks there first.
    func prefetchTail() {
        locked {
            guard record.acceptsRanges, length > tuning.probeBytes else { return }
            let tail = max(0, length - tuning.tailBytes)..<length
            for gap in written.union(reserved).gaps(in: tail) {
                reserved.insert(gap)
                readAheadJobs.append(gap)
            }
            startLanes()
            condition.broadcast()
        }
    }

    // MARK: - Reading (GStreamer's streaming threads)

    public func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer, shouldStop: () -> Bool) -> MediaReadResult {
        read(at: offset, into: buffer, playing: true, shouldStop: shouldStop)
    }

    /// Reads without reading ahead: only the bytes asked for (rounded up to
    /// a small job) are fetched.
    public func peek(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer, shouldStop: () -> Bool) -> MediaReadResult {
        read(at: offset, into: buffer, playing: false, shouldStop: shouldStop)
    }

    private func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer, playing: Bool,
                      shouldStop: () -> Bool) -> MediaReadResult {
        let end = min(offset + Int64(buffer.count), length)
        guard offset >= 0, offset < end else { return .bytes(0) }
        let span = offset..<end
        condition.lock()
        let sequential = playing && isSequential(offset)
        if playing { lastReadEnd = end }
        var waits = 0
        while !written.contains(span) {
            waits += 1
            if waits == 40 {  // two seconds
                logger.info("episode \(episodeID): waiting for bytes \(span) (on disk: \(written.ranges), fetching: \(reserved.ranges))")
            }
            if closed || changed || shouldStop() {
                condition.unlock()
                return .interrupted
            }
            if let failure {
                condition.unlock()
                return .failed(failure.message)
            }
            scheduleUrgent(for: span, sequential: sequential)
            waitingReaders += 1
            _ = condition.wait(until: Date(timeIntervalSinceNow: 0.05))
            waitingReaders -= 1
        }
        scheduleReadAhead(after: end, sequential: sequential)
        condition.unlock()
        do {
            return .bytes(try file.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<Int(end - offset)]), at: offset))
        } catch {
            return .failed(error.message)
        }
    }

    public func interruptReads() {
        locked { condition.broadcast() }
    }

    // MARK: - Scheduling (with `condition` locked)

    private func isSequential(_ offset: Int64) -> Bool {
        offset >= lastReadEnd - tuning.sequentialWindow && offset <= lastReadEnd + tuning.sequentialWindow
    }

    /// Queues the job that brings the first missing byte of `span` no job
    /// is fetching yet.
    private func scheduleUrgent(for span: Range<Int64>, sequential: Bool) {
        let covered = written.union(reserved)
        guard let missing = covered.gaps(in: span).first?.lowerBound else { return }
        guard record.acceptsRanges else { return scheduleWholeEntity() }
        var start = missing, size = tuning.randomMissBytes
        if length - missing <= tuning.tailBytes {
            start = max(0, length - tuning.tailBytes)
            size = tuning.tailBytes
        } else if sequential {
            size = tuning.sequentialJobBytes
        } else {
            start = missing / tuning.alignment * tuning.alignment
        }
        let candidate = start..<min(length, start + size)
        guard let job = covered.gaps(in: candidate).first(where: { $0.contains(missing) }) else { return }
        for queued in readAheadJobs { reserved.remove(queued) }
        readAheadJobs.removeAll()
        reserved.insert(job)
        urgentJobs.append(job)
        startLanes()
        condition.broadcast()
    }

    /// Keeps `readAheadBytes` after a sequential reader cached, topping up
    /// once less than half of it is there.
    private func scheduleReadAhead(after end: Int64, sequential: Bool) {
        guard sequential, record.acceptsRanges, readAheadJobs.isEmpty, end < length else { return }
        let covered = written.union(reserved)
        guard covered.contiguousCount(from: end) < readAheadBytes / 2 else { return }
        for gap in covered.gaps(in: end..<min(length, end + readAheadBytes)) {
            var start = gap.lowerBound
            while start < gap.upperBound {
                let job = start..<min(gap.upperBound, start + tuning.sequentialJobBytes)
                readAheadJobs.append(job)
                reserved.insert(job)
                start = job.upperBound
            }
        }
        if !readAheadJobs.isEmpty {
            startLanes()
            condition.broadcast()
        }
    }

    /// A server without ranges: one GET of the whole file, at most one at a time.
    private func scheduleWholeEntity() {
        guard reserved.isEmpty else { return }
        let whole = 0..<length
        reserved.insert(whole)
        readAheadJobs = [whole]
        startLanes()
        condition.broadcast()
    }

    /// The next gap to download while filling.
    private func nextFillJob() -> Range<Int64>? {
        guard record.acceptsRanges else {
            guard !written.contains(0..<length), reserved.isEmpty else { return nil }
            reserved.insert(0..<length)
            return 0..<length
        }
        guard let gap = written.union(reserved).gaps(in: 0..<length).first else { return nil }
        let job = gap.lowerBound..<min(gap.upperBound, gap.lowerBound + tuning.fillJobBytes)
        reserved.insert(job)
        return job
    }

    private func startLanes() {
        guard !lanesStarted, !closed else { return }
        lanesStarted = true
        runningLanes = 2
        for urgent in [true, false] {
            let thread = Thread { [self] in runLane(urgent: urgent) }
            thread.name = urgent ? "pods.cache.urgent" : "pods.cache.ahead"
            thread.start()
        }
    }

    // MARK: - Download lanes (their own threads)

    private func runLane(urgent: Bool) {
        while let job = nextJob(urgent: urgent) {
            fetch(job, priority: urgent ? .urgent : .background)
        }
        persist()
        locked {
            runningLanes -= 1
            condition.broadcast()
        }
    }

    /// Waits for a job; nil once the cache is closed or failed.
    private func nextJob(urgent: Bool) -> Range<Int64>? {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if closed || changed || failure != nil { return nil }
            if let retryAfter, ContinuousClock.now < retryAfter {
                _ = condition.wait(until: Date(timeIntervalSinceNow: 0.05))
                continue
            }
            if urgent, !urgentJobs.isEmpty { return urgentJobs.removeFirst() }
            if !urgent {
                if !readAheadJobs.isEmpty { return readAheadJobs.removeFirst() }
                if filling, let job = nextFillJob() { return job }
            }
            condition.wait()
        }
    }

    var isStopping: Bool { locked { closed || changed } }

    /// Marks `range` as being fetched (the probe's span).
    func reserve(_ range: Range<Int64>) { locked { reserved.insert(range) } }

    /// Fetches `job` into the file. A 200 from a server that ignores ranges
    /// is the whole file, kept; any sign of another version voids the cache.
    private func fetch(_ job: Range<Int64>, priority: TransferPriority) {
        let (validator, expectedETag, ranged) = locked { () -> (String?, String?, Bool) in
            let strongETag = record.etag.flatMap { $0.hasPrefix("W/") ? nil : $0 }
            return (strongETag ?? record.lastModified, record.etag, record.acceptsRanges)
        }
        var progress = JobProgress(span: job)
        var voided = false
        var outcome: HTTPError?
        do throws(HTTPError) {
            try http.streamingGet(
                url, range: ranged ? job : nil, ifRange: ranged ? validator : nil,
                head: { head in
                    let sameFile = head.totalLength == length
                        && (expectedETag == nil || head.etag == nil || head.etag == expectedETag)
                    switch head.status {
                    case 206 where sameFile && head.rangeStart == job.lowerBound:
                        break
                    case 200 where sameFile:
                        // No ranges here: the body is the whole file.
                        progress = JobProgress(span: 0..<length)
                        locked {
                            record.acceptsRanges = false
                            recordDirty = true
                            reserved.insert(0..<length)
                        }
                    default:
                        voided = true
                        return false
                    }
                    locked {
                        if record.finalURL != head.finalURL {
                            record.finalURL = head.finalURL
                            recordDirty = true
                        }
                    }
                    return true
                },
                body: { bytes in write(bytes, &progress) },
                isCancelled: { isStopping }, priority: priority)
        } catch {
            outcome = error
        }
        finish(progress, voided: voided, error: outcome)
    }

    /// How far a transfer for a job has got.
    struct JobProgress {
        /// The bytes the job reserved (its body goes no further).
        var span: Range<Int64>
        /// Where the next byte of the body goes.
        var cursor: Int64
        /// Why writing stopped, if it failed.
        var writeError: CacheError?

        init(span: Range<Int64>) {
            self.span = span
            self.cursor = span.lowerBound
        }
    }

    /// Writes a chunk of a job's body at its cursor, never past its span;
    /// false ends the transfer (span done, a write failed, or closing).
    func write(_ bytes: UnsafeRawBufferPointer, _ progress: inout JobProgress) -> Bool {
        let count = Int(min(Int64(bytes.count), progress.span.upperBound - progress.cursor))
        guard count > 0 else { return false }
        do throws(CacheError) {
            try receive(UnsafeRawBufferPointer(rebasing: bytes[0..<count]), at: progress.cursor)
        } catch {
            progress.writeError = error
            return false
        }
        progress.cursor += Int64(count)
        return progress.cursor < progress.span.upperBound && !isStopping
    }

    /// Writes received bytes and makes them readable at once.
    private func receive(_ bytes: UnsafeRawBufferPointer, at offset: Int64) throws(CacheError) {
        try file.write(bytes, at: offset)
        let saveNow = locked {
            written.insert(offset..<offset + Int64(bytes.count))
            bytesSinceSave += Int64(bytes.count)
            failuresInARow = 0
            condition.broadcast()
            return bytesSinceSave >= tuning.saveEveryBytes || ContinuousClock.now - lastSave >= tuning.saveEvery
        }
        if saveNow { persist() }
    }

    /// Ends a job: frees its span, and decides what its outcome means (a
    /// void cache, a failure, or a retry after a back-off).
    func finish(_ progress: JobProgress, voided: Bool, error: HTTPError?) {
        let job = progress.span, reached = progress.cursor
        var event: Event?
        locked {
            reserved.remove(job)
            if voided {
                changed = true
                event = .changed
            } else if let writeError = progress.writeError {
                failure = writeError
                event = .failed(writeError)
            } else if let error, error.code != .cancelled, reached < job.upperBound {
                failuresInARow += 1
                let permanent = error.code == .status && (400..<500).contains(error.status ?? 0)
                    && ![408, 429].contains(error.status ?? 0)
                if permanent || failuresInARow > tuning.maximumRetries {
                    let failed = CacheError(.network, error.message)
                    failure = failed
                    event = .failed(failed)
                } else {
                    logger.warning("episode \(episodeID): \(error.message); trying again (\(failuresInARow))")
                    // Back off, then whoever still needs the bytes asks again.
                    retryAfter = .now + .milliseconds(250 << min(failuresInARow, 5))
                }
            }
            condition.broadcast()
        }
        persist()
        if voided { try? library.deleteCachedMedia(episodeID) }
        if let event { onEvent(event) }
    }

    // MARK: - Saving

    /// Records what is written: snapshot, `fdatasync`, then the library row.
    /// A crash can lose a record of bytes on disk, never record bytes that are not.
    func persist() {
        persistLock.lock()
        defer { persistLock.unlock() }
        let (media, unchanged, void) = locked { () -> (CachedMedia, Bool, Bool) in
            var media = record
            media.ranges = written.ranges
            media.complete = written.contains(0..<length)
            media.lastAccess = Date()
            bytesSinceSave = 0
            lastSave = .now
            defer { recordDirty = false }
            return (media, written == durable && !recordDirty, changed)
        }
        guard !void, !unchanged else { return }
        do {
            try file.sync()
            try library.saveCachedMedia(media)
        } catch {
            return  // the ranges stay unrecorded; the bytes are fetched again next time
        }
        let justCompleted = locked {
            durable = ByteRanges(media.ranges)
            record.complete = media.complete
            defer { completionReported = completionReported || media.complete }
            return media.complete && !completionReported
        }
        if justCompleted { onEvent(.completed) }
    }
}
