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

    /// The policy for a document read from `documentURL` (nil: unknown,
    /// such as standard input, where nothing is fetched from).
    public init(documentURL: URL?) {
        isLocal = documentURL.map { !Self.isHTTP($0.absoluteString) } ?? true
    }

    /// Whether a document under this policy may name `address`.
    public func allows(_ address: String) -> Bool { isLocal || Self.isHTTP(address) }

    /// `http://` or `https://`, in any case.
    public static func isHTTP(_ address: String) -> Bool {
        let lower = address.prefix(8).lowercased()
        return lower.hasPrefix("http://") || lower.hasPrefix("https://")
    }
}
