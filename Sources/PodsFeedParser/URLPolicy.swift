import Foundation

/// Which addresses a document from outside may name. A document fetched
/// over http(s) (a feed, a web page) names only http(s) addresses: never a
/// local file (`file:`), which would let whoever serves or intercepts it
/// move a subscription onto a local file or have a transcript, an image or
/// a chapter read one. A document the listener opened from their own disk
/// (`pods subscribe file://…`) may name files beside it too.
public struct URLPolicy: Sendable {
    /// Whether the document is the listener's own (not from the web): it
    /// may name anything, files beside it included.
    public let isLocal: Bool

    /// The policy for a document read from `documentURL`. It fails closed:
    /// only a `file:` document is local; nil (unknown, or a URL that did not
    /// parse) counts as the web's.
    public init(documentURL: URL?) {
        isLocal = documentURL?.isFileURL == true
    }

    /// The policy for what a podcast whose own feed is `feedURL` may name
    /// (what the library stored for it included).
    public init(feedURL: String) { self.init(documentURL: URL(string: feedURL)) }

    /// The most bytes a local document is read whole: what HTTP lets in for one.
    public static let maximumLocalBytes = 16 << 20

    /// Reads the local file `address` names, if this policy allows local
    /// files, it is a regular file and it is at most `maximumBytes` long.
    public func readLocalFile(_ address: String, maximumBytes: Int = maximumLocalBytes) -> Result<Data, URLPolicyError> {
        guard let url = URL(string: address), url.isFileURL else { return .failure(URLPolicyError("\(address) is not a file URL")) }
        guard isLocal else { return .failure(URLPolicyError("a podcast from the web may not name a local file (\(address))")) }
        let descriptor = open(url.path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { return .failure(URLPolicyError("cannot read \(url.path): \(String(cString: strerror(errno)))")) }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            return .failure(URLPolicyError("\(url.path) is not a regular file"))
        }
        guard status.st_size <= maximumBytes else {
            return .failure(URLPolicyError("\(url.path) is \(status.st_size) bytes, more than the \(maximumBytes) a document may be"))
        }
        do {
            let data = try handle.read(upToCount: maximumBytes + 1) ?? Data()
            guard data.count <= maximumBytes else { return .failure(URLPolicyError("\(url.path) grew past \(maximumBytes) bytes")) }
            return .success(data)
        } catch {
            return .failure(URLPolicyError("cannot read \(url.path): \(error.localizedDescription)"))
        }
    }

    /// Whether a document under this policy may name `address`.
    public func allows(_ address: String) -> Bool { isLocal || Self.isHTTP(address) }

    /// `http://` or `https://`, in any case.
    public static func isHTTP(_ address: String) -> Bool {
        let lower = address.prefix(8).lowercased()
        return lower.hasPrefix("http://") || lower.hasPrefix("https://")
    }
}

/// Why a local file was not read.
public struct URLPolicyError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
