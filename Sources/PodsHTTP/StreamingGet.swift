internal import CCurl

/// The head of a response to a streaming GET.
public struct HTTPResponseHead: Sendable, Equatable {
    public var status: Int
    /// The URL the response came from, after redirects.
    public var finalURL: String
    public var etag: String?
    public var lastModified: String?
    /// The body's length, when the server said.
    public var contentLength: Int64?
    /// For a 206: the first byte the body carries.
    public var rangeStart: Int64?
    /// For a 206: the whole entity's length (nil when the server wrote `*`).
    public var entityLength: Int64?

    /// The entity's full length: from `Content-Range` for a 206, else `Content-Length`.
    public var totalLength: Int64? { status == 206 ? entityLength : contentLength }
}

extension HTTPClient {
    /// GETs `url` and hands the body over as it arrives, blocking the
    /// calling thread (call it from a thread of your own, never from the
    /// cooperative pool).
    ///
    /// Byte offsets must refer to the stored representation, so it asks for
    /// `Accept-Encoding: identity`. Redirects are followed.
    ///
    /// - Parameters:
    ///   - range: the bytes wanted (nil: the whole entity).
    ///   - ifRange: a validator (strong ETag or Last-Modified) sent as
    ///     `If-Range`: a server that honours it answers 200 with the whole
    ///     entity when it changed.
    ///   - head: called once, before the first body byte, for a 2xx answer;
    ///     false stops the transfer.
    ///   - body: called per chunk received; false stops the transfer.
    ///   - isCancelled: polled several times a second, also while nothing
    ///     arrives or while waiting for the scheduler; true aborts with
    ///     `.cancelled`.
    ///   - priority: the transfer's turn in `TransferScheduler` (nil: the
    ///     options' priority).
    /// - Returns: the head, also when `head` or `body` stopped the transfer.
    /// - Throws: `.status` for an answer that is not 2xx, `.cancelled`, and
    ///   the network errors of `get`.
    @discardableResult
    public func streamingGet(
        _ url: String, range: Range<Int64>? = nil, ifRange: String? = nil,
        head: (HTTPResponseHead) -> Bool, body: (UnsafeRawBufferPointer) -> Bool,
        isCancelled: () -> Bool = { false }, priority: TransferPriority? = nil
    ) throws(HTTPError) -> HTTPResponseHead {
        guard HTTPClient.isHTTP(url) else {
            throw HTTPError(.invalidURL, "not an http(s) URL: \(url)")
        }
        let server = TransferScheduler.server(of: url)
        guard TransferScheduler.shared.start(server: server, priority: priority ?? options.priority, isCancelled: isCancelled) else {
            throw HTTPError(.cancelled, "\(url): cancelled")
        }
        defer { TransferScheduler.shared.end(server: server) }
        let result = withoutActuallyEscaping(head) { head in
            withoutActuallyEscaping(body) { body in
                withoutActuallyEscaping(isCancelled) { isCancelled in
                    StreamingTransfer(url: url, options: options, head: head, body: body, isCancelled: isCancelled)
                        .perform(range: range, ifRange: ifRange)
                }
            }
        }
        return try result.get()
    }
}

/// One streaming transfer, confined to the thread that performs it.
private final class StreamingTransfer {
    let url: String
    let options: HTTPClient.Options
    let onHead: (HTTPResponseHead) -> Bool
    let onBody: (UnsafeRawBufferPointer) -> Bool
    let isCancelled: () -> Bool
    let responseHeaders = ResponseHeaders()
    var handle: UnsafeMutableRawPointer?
    var responseHead: HTTPResponseHead?
    var stoppedByCaller = false
    var cancelled = false

    init(url: String, options: HTTPClient.Options, head: @escaping (HTTPResponseHead) -> Bool,
         body: @escaping (UnsafeRawBufferPointer) -> Bool, isCancelled: @escaping () -> Bool) {
        self.url = url
        self.options = options
        self.onHead = head
        self.onBody = body
        self.isCancelled = isCancelled
    }

    func perform(range: Range<Int64>?, ifRange: String?) -> Result<HTTPResponseHead, HTTPError> {
        guard let handle = HTTPClient.makeHandle() else { return .failure(HTTPError(.other, "libcurl could not start")) }
        self.handle = handle
        defer { curl_easy_cleanup(handle) }
        var list: UnsafeMutablePointer<curl_slist>?
        list = curl_slist_append(list, "Accept-Encoding: identity")
        if let range { list = curl_slist_append(list, "Range: bytes=\(range.lowerBound)-\(range.upperBound - 1)") }
        if let ifRange { list = curl_slist_append(list, "If-Range: \(ifRange)") }
        defer { curl_slist_free_all(list) }
        HTTPClient.configure(handle, url: url, options: options)
        pods_curl_set_pointer(handle, CURLOPT_HTTPHEADER, UnsafeMutableRawPointer(list))
        let me = Unmanaged.passUnretained(self).toOpaque()
        pods_curl_set_write_function(handle, CURLOPT_WRITEFUNCTION, Self.write)
        pods_curl_set_pointer(handle, CURLOPT_WRITEDATA, me)
        responseHeaders.install(on: handle)
        pods_curl_set_xferinfo_function(handle, Self.progress)
        pods_curl_set_pointer(handle, CURLOPT_XFERINFODATA, me)
        pods_curl_set_long(handle, CURLOPT_NOPROGRESS, 0)
        let code = curl_easy_perform(handle)
        if cancelled { return .failure(HTTPError(.cancelled, "\(url): cancelled")) }
        if stoppedByCaller, let responseHead { return .success(responseHead) }
        guard code == CURLE_OK else { return .failure(HTTPClient.error(code, url: url, handle: handle)) }
        let head = responseHead ?? makeHead()
        guard (200..<300).contains(head.status) else {
            return .failure(HTTPError(.status, "\(head.finalURL) answered HTTP \(head.status)", status: head.status))
        }
        if responseHead == nil, !onHead(head) { stoppedByCaller = true }
        return .success(head)
    }

    /// The head of the final response (after redirects).
    private func makeHead() -> HTTPResponseHead {
        var effective: UnsafeMutablePointer<CChar>?
        if let handle { pods_curl_get_string(handle, CURLINFO_EFFECTIVE_URL, &effective) }
        let field = responseHeaders.field
        var head = HTTPResponseHead(
            status: responseHeaders.status, finalURL: effective.map { String(cString: $0) } ?? url,
            etag: field("etag"), lastModified: field("last-modified"),
            contentLength: field("content-length").flatMap { Int64($0) })
        // Content-Range: bytes 0-65535/1440000 (or /*)
        if let contentRange = field("content-range"), contentRange.lowercased().hasPrefix("bytes ") {
            let spec = contentRange.dropFirst(6).split(separator: "/", maxSplits: 1)
            head.rangeStart = spec.first?.split(separator: "-").first.flatMap { Int64($0.trimmingCharacters(in: .whitespaces)) }
            head.entityLength = spec.count == 2 ? Int64(spec[1].trimmingCharacters(in: .whitespaces)) : nil
        }
        return head
    }

    /// Called for the first body byte of a 2xx answer: the head is complete.
    private func startBody() -> Bool {
        let head = makeHead()
        responseHead = head
        guard (200..<300).contains(head.status) else { return true }  // an error page: read and drop
        return onHead(head)
    }

    private static let write: @convention(c) (UnsafeMutablePointer<CChar>?, Int, Int, UnsafeMutableRawPointer?) -> Int = { data, size, count, context in
        guard let data, let context else { return 0 }
        let transfer = Unmanaged<StreamingTransfer>.fromOpaque(context).takeUnretainedValue()
        let length = size * count
        if transfer.responseHead == nil, !transfer.startBody() {
            transfer.stoppedByCaller = true
            return 0
        }
        guard let head = transfer.responseHead, (200..<300).contains(head.status) else { return length }
        guard transfer.onBody(UnsafeRawBufferPointer(start: data, count: length)) else {
            transfer.stoppedByCaller = true
            return 0  // aborts the transfer
        }
        return length
    }

    private static let progress: @convention(c) (UnsafeMutableRawPointer?, curl_off_t, curl_off_t, curl_off_t, curl_off_t) -> Int32 = { context, _, _, _, _ in
        guard let context else { return 0 }
        let transfer = Unmanaged<StreamingTransfer>.fromOpaque(context).takeUnretainedValue()
        if transfer.isCancelled() {
            transfer.cancelled = true
            return 1  // aborts the transfer
        }
        return 0
    }
}
