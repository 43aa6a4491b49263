import Foundation
import PodsFeedParser
import PodsHTTP
import PodsLibrary

/// Podcast and episode artwork, fetched once and kept in
/// `<cache directory>/artwork`, so MPRIS can point applets at a local
/// `file://` image that works offline.
///
/// Concurrent requests for one image share one fetch. A copy older than
/// `revalidateAfter` is revalidated with its ETag (a 304 costs no body).
public actor ArtworkCache {
    /// How long a copy is used before asking the server whether it changed.
    public static let revalidateAfter: TimeInterval = 7 * 24 * 3600

    public nonisolated let directory: URL
    private let library: Library
    private let http: HTTPClient
    private var inFlight: [String: Task<String?, Never>] = [:]

    /// - Parameter directory: the cache directory (`artwork` is made inside).
    public init(directory: URL, library: Library, http: HTTPClient = HTTPClient()) {
        self.directory = directory.appendingPathComponent("artwork")
        self.library = library
        var options = http.options
        options.maximumBytes = 16 * 1024 * 1024
        self.http = HTTPClient(options: options)
    }

    /// The local `file://` URI of an image already cached (no network);
    /// `file:` URLs are their own answer where `policy` (the podcast's own
    /// feed's) allows local files, and no answer anywhere else.
    public func cachedURI(for url: String, policy: URLPolicy) -> String? {
        if url.hasPrefix("file:") { return policy.isLocal ? url : nil }
        guard let record = try? library.cachedArtwork(url) else { return nil }
        let path = directory.appendingPathComponent(record.fileName).path
        return FileManager.default.fileExists(atPath: path) ? URL(fileURLWithPath: path).absoluteString : nil
    }

    /// The local `file://` URI of `url`'s image, fetching it if needed
    /// (or revalidating a stale copy); nil when it cannot be had.
    public func localURI(for url: String, policy: URLPolicy) async -> String? {
        if url.hasPrefix("file:") { return policy.isLocal ? url : nil }
        let record = try? library.cachedArtwork(url)
        if let cached = cachedURI(for: url, policy: policy),
           let record, Date().timeIntervalSince(record.validatedAt) < Self.revalidateAfter {
            return cached
        }
        if let pending = inFlight[url] { return await pending.value }
        let task = Task { await fetch(url, previous: cachedURI(for: url, policy: policy) == nil ? nil : record) }
        inFlight[url] = task
        let result = await task.value
        inFlight[url] = nil
        return result
    }

    /// Keeps an image found inside a media file (a chapter's `APIC`) under
    /// a name made from `key` and returns its `file://` URI; the same key
    /// is written once.
    public nonisolated func storeEmbedded(_ bytes: [UInt8], key: String, fileExtension: String) -> String? {
        let path = directory.appendingPathComponent("embedded-" + Self.fileName(for: key) + "." + fileExtension)
        if !FileManager.default.fileExists(atPath: path.path) {
            do {
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                try Data(bytes).write(to: path, options: .atomic)
            } catch {
                return nil
            }
        }
        return URL(fileURLWithPath: path.path).absoluteString
    }

    private func fetch(_ url: String, previous: CachedArtwork?) async -> String? {
        let response: HTTPResponse
        do {
            response = try await http.get(url, ifNoneMatch: previous?.etag, ifModifiedSince: previous?.lastModified)
        } catch {
            return previous.map { URL(fileURLWithPath: directory.appendingPathComponent($0.fileName).path).absoluteString }
        }
        let fileName = previous?.fileName ?? Self.fileName(for: url)
        let path = directory.appendingPathComponent(fileName)
        if response.status != 304 {
            do {
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                try response.body.write(to: path, options: .atomic)
            } catch {
                return nil
            }
        }
        try? library.saveCachedArtwork(CachedArtwork(
            url: url, fileName: fileName, etag: response.etag ?? previous?.etag,
            lastModified: response.lastModified ?? previous?.lastModified))
        return URL(fileURLWithPath: path.path).absoluteString
    }

    /// A file name for what `url` names: a 64-bit FNV-1a hash of it, keeping a short extension.
    public static func fileName(for url: String) -> String {
        let hash = url.utf8.reduce(UInt64(0xcbf2_9ce4_8422_2325)) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
        let pathExtension = URL(string: url)?.pathExtension.lowercased() ?? ""
        let safe = (1...5).contains(pathExtension.count) && pathExtension.allSatisfy { $0.isLetter || $0.isNumber }
        return String(hash, radix: 16) + (safe ? ".\(pathExtension)" : "")
    }
}
