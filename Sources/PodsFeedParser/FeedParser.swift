import Foundation

/// Parses podcast feeds with libxml2, streaming, in bounded memory.
///
/// ```swift
/// let feed = try FeedParser(baseURL: URL(string: "https://example.com/feed.xml")).parse(data)
/// ```
public struct FeedParser: Sendable {
    /// The size limit by default: 64 MB.
    public static let defaultSizeLimit = 64 * 1024 * 1024
    /// How much is fed to libxml2 at a time.
    static let chunkSize = 64 * 1024

    /// Relative links resolve against this (the feed's own URL).
    public var baseURL: URL?
    /// Larger documents stop with `FeedError.Code.tooLarge`.
    public var sizeLimit: Int

    public init(baseURL: URL? = nil, sizeLimit: Int = FeedParser.defaultSizeLimit) {
        self.baseURL = baseURL
        self.sizeLimit = sizeLimit
    }

    /// Parses a whole document held in memory, in chunks.
    public func parse(_ data: Data) throws(FeedError) -> Feed {
        let session = try Session(baseURL: baseURL, sizeLimit: sizeLimit)
        var offset = 0
        while offset < data.count {
            let end = min(offset + Self.chunkSize, data.count)
            try session.feed(data[offset..<end])
            offset = end
        }
        return try session.finish()
    }

    /// Parses a file, reading it in chunks (the file is never held whole).
    public func parse(fileAt path: String) throws(FeedError) -> Feed {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw FeedError(.unreadable, "cannot read \(path)")
        }
        defer { try? handle.close() }
        let session = try Session(baseURL: baseURL ?? URL(fileURLWithPath: path), sizeLimit: sizeLimit)
        while true {
            let chunk: Data
            do {
                chunk = try handle.read(upToCount: Self.chunkSize) ?? Data()
            } catch {
                throw FeedError(.unreadable, "cannot read \(path): \(error.localizedDescription)")
            }
            if chunk.isEmpty { break }
            try session.feed(chunk)
        }
        return try session.finish()
    }

    /// One document being parsed: bytes in (repaired by `DocumentRepair`), a feed out.
    final class Session {
        private let events: BuilderEvents
        private let parser: XMLStreamParser
        private var repair = DocumentRepair()

        init(baseURL: URL?, sizeLimit: Int) throws(FeedError) {
            events = BuilderEvents(FeedBuilder(baseURL: baseURL))
            parser = try XMLStreamParser(handler: events, sizeLimit: sizeLimit)
        }

        func feed(_ bytes: Data) throws(FeedError) {
            try feedRepaired(repair.process(bytes))
        }

        private func feedRepaired(_ bytes: [UInt8]) throws(FeedError) {
            var failure: FeedError?
            bytes.withUnsafeBytes { raw in
                do throws(FeedError) { try parser.feed(raw) } catch { failure = error }
            }
            if let failure { throw failure }
        }

        func finish() throws(FeedError) -> Feed {
            try feedRepaired(repair.finish())
            try parser.finish()
            if let reason = events.builder.notAFeedReason {
                if parser.bytesFed == 0 { throw FeedError(.malformed, "not a podcast feed: the document is empty") }
                if let error = parser.firstError, !events.builder.sawElement {
                    throw FeedError(.malformed, "not a podcast feed: not XML (\(error))")
                }
                throw FeedError(.notAFeed, reason)
            }
            return events.builder.finish()
        }
    }
}

/// Hands the parser's events to a `FeedBuilder` value: one exclusive access
/// per event, instead of one for every field the builder touches.
private final class BuilderEvents: XMLStreamHandler {
    var builder: FeedBuilder

    init(_ builder: FeedBuilder) { self.builder = builder }

    func startElement(_ name: XMLName, attributes: [XMLAttribute]) {
        builder.startElement(name, attributes: attributes)
    }

    func endElement() { builder.endElement() }

    func text(_ bytes: UnsafeBufferPointer<UInt8>) { builder.text(bytes) }
}
