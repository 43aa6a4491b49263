import Foundation
import Synchronization
internal import CCurl

/// What a GET brought back.
public struct HTTPResponse: Sendable {
    /// The final status (after redirects); 304 when a conditional GET found no change.
    public var status: Int
    /// Empty when the body went to `bodyFile`.
    public var body: Data
    /// Where a body larger than `Options.spillThreshold` was written, when
    /// the client has a `spillDirectory`; the caller owns the file (and
    /// removes it).
    public var bodyFile: String?
    /// The URL the body came from, after redirects.
    public var finalURL: String
    /// Set when every redirect on the way was permanent (301/308): where the resource now lives.
    public var permanentURL: String?
    public var etag: String?
    public var lastModified: String?
    /// The server's `Date` header, as sent (its clock, to the second).
    public var date: String?
}

/// Why a request failed.
public struct HTTPError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: Sendable, Hashable {
        case invalidURL, unreachable, timedOut, tooLarge, status, cancelled, other
    }

    public var code: Code
    public var message: String
    /// The HTTP status, for `.status`.
    public var status: Int?

    public init(_ code: Code, _ message: String, status: Int? = nil) {
        self.code = code
        self.message = message
        self.status = status
    }

    public var description: String { message }
}

/// HTTP GET over libcurl: every transfer of the process on one multi
/// handle, run by one thread of its own (`TransferLoop`), never on Swift's
/// cooperative pool.
public struct HTTPClient: Sendable {
    /// Limits and identity for requests.
    public struct Options: Sendable {
        public var connectTimeout: Duration = .seconds(10)
        /// Abort when fewer than `lowSpeedBytes` per second arrive for this long.
        public var lowSpeedTime: Duration = .seconds(30)
        public var lowSpeedBytes = 16
        /// The longest a whole transfer may take (nil: only the low-speed
        /// limit ends it): a server that trickles just above that limit
        /// fails within this instead of holding on for days.
        public var deadline: Duration?
        public var maximumBytes = 64 * 1024 * 1024
        public var maximumRedirects = 10
        public var userAgent = "Pods/0.1"

        /// Bodies that grow past `spillThreshold` go to a file in this
        /// folder instead of memory (nil: always memory). Twenty large feeds
        /// that changed at once then wait for the parser on disk.
        public var spillDirectory: String?
        public var spillThreshold = 1 << 20
        /// A user name and password for a URL (a private feed's host), asked
        /// for each transfer; libcurl sends them to that host only, never
        /// after a redirect to another.
        public var credentials: (@Sendable (String) -> HTTPCredentials?)?
        /// Whether someone waits on the transfer now (`TransferScheduler`).
        public var priority = TransferPriority.background

        public init() {}
    }

    public var options: Options

    public init(options: Options = Options()) {
        self.options = options
    }

    /// A client for small documents: at most `maximumBytes`, the whole
    /// answer within `deadline`.
    public init(maximumBytes: Int, deadline: Duration) {
        var options = Options()
        options.maximumBytes = maximumBytes
        options.deadline = deadline
        self.init(options: options)
    }

    /// `scheme://host:port` of `url` (the port always written), lower case:
    /// the key credentials are kept under.
    public static func origin(of url: String) -> String? {
        guard let parsed = URLComponents(string: url), let scheme = parsed.scheme?.lowercased(),
              scheme == "http" || scheme == "https", let host = parsed.host?.lowercased(), !host.isEmpty else { return nil }
        return "\(scheme)://\(host):\(parsed.port ?? (scheme == "https" ? 443 : 80))"
    }

    /// Whether `url` is an absolute http or https URL with a host (the
    /// scheme in any case: `HTTPS://` is one too).
    public static func isHTTP(_ url: String) -> Bool {
        guard let parsed = URL(string: url), let scheme = parsed.scheme?.lowercased() else { return false }
        return (scheme == "http" || scheme == "https") && parsed.host?.isEmpty == false
    }

    /// GETs `url` (http or https), following redirects. `ifNoneMatch` and
    /// `ifModifiedSince` make it conditional (a 304 comes back with an empty
    /// body); `headers` are sent as given (an API's authentication).
    public func get(_ url: String, ifNoneMatch: String? = nil, ifModifiedSince: String? = nil,
                    headers: [(name: String, value: String)] = []) async throws(HTTPError) -> HTTPResponse {
        guard Self.isHTTP(url) else { throw HTTPError(.invalidURL, "not an http(s) URL: \(url)") }
        var lines = headers.map { "\($0.name): \($0.value)" }
        if let ifNoneMatch { lines.append("If-None-Match: \(ifNoneMatch)") }
        if let ifModifiedSince { lines.append("If-Modified-Since: \(ifModifiedSince)") }
        // A header line must be one line: a value with a line break in it is refused, not sent split.
        guard lines.allSatisfy({ !$0.contains("\r") && !$0.contains("\n") }) else {
            throw HTTPError(.invalidURL, "a request header holds a line break")
        }
        return try await perform(Transfer(url: url, options: options, headerLines: lines))
    }

    /// POSTs `body` (of `contentType`) to `url` and reads the answer as
    /// `get` does (redirects followed, non-2xx an error with its status).
    public func post(_ url: String, body: Data, contentType: String = "application/json",
                     headers: [(name: String, value: String)] = []) async throws(HTTPError) -> HTTPResponse {
        guard Self.isHTTP(url) else { throw HTTPError(.invalidURL, "not an http(s) URL: \(url)") }
        let lines = headers.map { "\($0.name): \($0.value)" } + ["Content-Type: \(contentType)"]
        guard lines.allSatisfy({ !$0.contains("\r") && !$0.contains("\n") }) else {
            throw HTTPError(.invalidURL, "a request header holds a line break")
        }
        let transfer = Transfer(url: url, options: options, headerLines: lines)
        transfer.postBody = body
        return try await perform(transfer)
    }

    private func perform(_ transfer: Transfer) async throws(HTTPError) -> HTTPResponse {
        // A cancelled task cancels its transfer: the loop drops it and answers `.cancelled` at once.
        let result: Result<HTTPResponse, HTTPError> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                transfer.completion = { continuation.resume(returning: $0) }
                TransferLoop.shared.submit(transfer)
            }
        } onCancel: {
            TransferLoop.shared.cancel(transfer)
        }
        return try result.get()
    }

    /// One transfer: its handle, callbacks and results, on the transfer loop's thread.
    final class Transfer: @unchecked Sendable {
        // @unchecked Sendable, proven: built on the caller's thread and handed
        // whole to the transfer loop, whose one thread alone touches it from
        // then on; the caller only waits for `completion`, and may set
        // `cancelRequested`, which is atomic.
        let url: String
        /// Set by the caller's task when it is cancelled (`TransferLoop.cancel`).
        let cancelRequested = Atomic<Bool>(false)
        /// The scheduler's key for `url`.
        let server: String
        let options: Options
        let headerLines: [String]
        /// A POST's body (nil: a GET).
        var postBody: Data?
        var body = Data()
        var tooLarge = false
        /// The file the body went to once it passed the spill threshold.
        private var spill: (fd: Int32, path: String, bytes: Int)?
        private var spillFailed = false
        /// The easy handle, for the body's announced length on its first bytes.
        private var handle: UnsafeMutableRawPointer?
        let responseHeaders = ResponseHeaders()
        private var headerList: UnsafeMutablePointer<curl_slist>?
        var completion: (Result<HTTPResponse, HTTPError>) -> Void = { _ in }

        /// libcurl's receive buffer for a whole-body transfer.
        static let bufferSize = 256 << 10

        init(url: String, options: Options, headerLines: [String]) {
            self.url = url
            self.server = TransferScheduler.server(of: url)
            self.options = options
            self.headerLines = headerLines
        }

        deinit {
            curl_slist_free_all(headerList)
            if let spill {  // never handed over: the transfer failed
                close(spill.fd)
                unlink(spill.path)
            }
        }

        /// A configured easy handle for this transfer (the caller owns it).
        func makeHandle() -> UnsafeMutableRawPointer? {
            guard let handle = HTTPClient.makeHandle() else { return nil }
            self.handle = handle
            for line in headerLines { headerList = curl_slist_append(headerList, line) }
            HTTPClient.configure(handle, url: url, options: options)
            // Whole bodies are read 256 KiB at a time, not libcurl's 16: a
            // 177 MB refresh made 11,000 reads and as many calls to `receive`.
            pods_curl_set_long(handle, CURLOPT_BUFFERSIZE, Self.bufferSize)
            pods_curl_set_string(handle, CURLOPT_ACCEPT_ENCODING, "")  // every encoding libcurl can decode (gzip, deflate, br…)
            pods_curl_set_pointer(handle, CURLOPT_HTTPHEADER, UnsafeMutableRawPointer(headerList))
            if let postBody {
                pods_curl_set_long(handle, CURLOPT_POSTFIELDSIZE, postBody.count)
                // libcurl copies the bytes: nothing has to outlive this call.
                _ = postBody.withUnsafeBytes { bytes in
                    if let start = bytes.baseAddress, !bytes.isEmpty {
                        pods_curl_set_pointer(handle, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: start))
                    } else {
                        pods_curl_set_string(handle, CURLOPT_COPYPOSTFIELDS, "")
                    }
                }
            }
            pods_curl_set_write_function(handle, CURLOPT_WRITEFUNCTION, Self.write)
            pods_curl_set_pointer(handle, CURLOPT_WRITEDATA, Unmanaged.passUnretained(self).toOpaque())
            responseHeaders.install(on: handle)
            return handle
        }

        /// The response, once libcurl is done with `handle` with `code`.
        func result(_ handle: UnsafeMutableRawPointer, _ code: CURLcode) -> Result<HTTPResponse, HTTPError> {
            if tooLarge { return .failure(HTTPError(.tooLarge, "\(url) is larger than \(options.maximumBytes / 1_048_576) MB")) }
            if spillFailed { return .failure(HTTPError(.other, "\(url): cannot write the body to \(options.spillDirectory ?? "")")) }
            guard code == CURLE_OK else { return .failure(HTTPClient.error(code, url: url, deadline: options.deadline, handle: handle)) }
            var status = 0
            pods_curl_get_long(handle, CURLINFO_RESPONSE_CODE, &status)
            var effective: UnsafeMutablePointer<CChar>?
            pods_curl_get_string(handle, CURLINFO_EFFECTIVE_URL, &effective)
            let finalURL = effective.map { String(cString: $0) } ?? url
            guard (200..<300).contains(status) || status == 304 else {
                return .failure(HTTPError(.status, "\(finalURL) answered HTTP \(status)", status: status))
            }
            let redirects = responseHeaders.statuses.dropLast()
            let permanent = !redirects.isEmpty && redirects.allSatisfy { $0 == 301 || $0 == 308 } ? finalURL : nil
            var file: String?
            if let spill {
                close(spill.fd)
                file = spill.path
                self.spill = nil  // the caller's now
            }
            return .success(HTTPResponse(
                status: status, body: body, bodyFile: file, finalURL: finalURL, permanentURL: permanent,
                etag: responseHeaders.field("etag"), lastModified: responseHeaders.field("last-modified"),
                date: responseHeaders.field("date")))
        }

        /// Takes a chunk of the body: into memory, or into the spill file
        /// once the body passes the threshold. False stops the transfer.
        fileprivate func receive(_ chunk: UnsafeRawBufferPointer) -> Bool {
            let received = (spill?.bytes ?? body.count) + chunk.count
            if received > options.maximumBytes {
                tooLarge = true
                return false
            }
            if spill == nil, let directory = options.spillDirectory, received > options.spillThreshold {
                var template = Array("\(directory)/pods-body-XXXXXX".utf8CString)
                let fd = mkstemp(&template)
                guard fd >= 0 else {
                    spillFailed = true
                    return false
                }
                spill = (fd, String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self), 0)
                let held = body
                body = Data()
                guard held.withUnsafeBytes({ writeToSpill($0) }) else { return false }
            }
            if spill != nil { return writeToSpill(chunk) }
            if body.isEmpty { reserveAnnouncedLength() }
            body.append(contentsOf: chunk)
            return true
        }

        private func writeToSpill(_ bytes: UnsafeRawBufferPointer) -> Bool {
            guard let file = spill, let base = bytes.baseAddress else { return true }
            var offset = 0
            while offset < bytes.count {
                let written = Glibc.write(file.fd, base + offset, bytes.count - offset)
                if written > 0 {
                    offset += written
                } else if written < 0 && errno == EINTR {
                    continue
                } else {
                    spillFailed = true  // a full disk, say
                    return false
                }
            }
            spill?.bytes += bytes.count
            return true
        }

        /// Room for the whole body at once when the server said its length:
        /// growing by doubling would hold up to three times a large feed
        /// while it arrives.
        private func reserveAnnouncedLength() {
            guard let handle else { return }
            var announced: curl_off_t = -1
            guard pods_curl_get_off_t(handle, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &announced) == CURLE_OK, announced > 0 else { return }
            body.reserveCapacity(Int(min(Int64(announced), Int64(options.maximumBytes))))
        }

        private static let write: @convention(c) (UnsafeMutablePointer<CChar>?, Int, Int, UnsafeMutableRawPointer?) -> Int = { data, size, count, context in
            guard let data, let context else { return 0 }
            let transfer = Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue()
            let length = size * count
            let accepted = transfer.receive(UnsafeRawBufferPointer(start: UnsafeRawPointer(data), count: length))
            return accepted ? length : 0  // 0 aborts the transfer
        }
    }

    // MARK: - Shared by every transfer

    private static let globalInit: Void = { curl_global_init(Int(CURL_GLOBAL_DEFAULT)) }()

    /// `curl_global_init`, once, before any other libcurl call.
    static func initializeLibrary() { globalInit }

    /// The options every transfer sets: the URL, http(s) only (also for
    /// redirects, which are followed), the time limits and the User-Agent.
    static func configure(_ handle: UnsafeMutableRawPointer, url: String, options: Options) {
        pods_curl_set_string(handle, CURLOPT_URL, url)
        pods_curl_set_string(handle, CURLOPT_PROTOCOLS_STR, "http,https")
        pods_curl_set_string(handle, CURLOPT_REDIR_PROTOCOLS_STR, "http,https")
        pods_curl_set_long(handle, CURLOPT_FOLLOWLOCATION, 1)
        pods_curl_set_long(handle, CURLOPT_MAXREDIRS, options.maximumRedirects)
        pods_curl_set_long(handle, CURLOPT_CONNECTTIMEOUT_MS, milliseconds(options.connectTimeout))
        pods_curl_set_long(handle, CURLOPT_LOW_SPEED_TIME, Int(options.lowSpeedTime.components.seconds))
        pods_curl_set_long(handle, CURLOPT_LOW_SPEED_LIMIT, options.lowSpeedBytes)
        if let deadline = options.deadline { pods_curl_set_long(handle, CURLOPT_TIMEOUT_MS, milliseconds(deadline)) }
        pods_curl_set_long(handle, CURLOPT_NOSIGNAL, 1)
        pods_curl_set_string(handle, CURLOPT_USERAGENT, options.userAgent)
        if let credentials = options.credentials?(url) {
            pods_curl_set_string(handle, CURLOPT_USERNAME, credentials.user)
            pods_curl_set_string(handle, CURLOPT_PASSWORD, credentials.password)
            pods_curl_set_long(handle, CURLOPT_HTTPAUTH, pods_curl_auth_basic_or_digest())
        }
        if let share = SharedConnections.shared.handle { pods_curl_set_pointer(handle, CURLOPT_SHARE, share) }
    }

    /// A new easy handle (nil if libcurl cannot make one).
    static func makeHandle() -> UnsafeMutableRawPointer? {
        globalInit
        return curl_easy_init()
    }

    private static func milliseconds(_ duration: Duration) -> Int {
        Int(duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000)
    }

    /// What went wrong, said the way a listener can act on: a name that
    /// does not resolve, a server refusing or not answering, a secure
    /// connection that failed. `handle` gives the system's reason for a
    /// failed connect.
    static func error(_ code: CURLcode, url: String, deadline: Duration? = nil, handle: UnsafeMutableRawPointer? = nil) -> HTTPError {
        let reason = String(cString: curl_easy_strerror(code))
        if code == CURLE_OPERATION_TIMEDOUT, let deadline {
            return HTTPError(.timedOut, "\(url): timed out (no connection within the connect limit, "
                             + "or no whole answer within \(deadline.components.seconds) s)")
        }
        switch code {
        case CURLE_OPERATION_TIMEDOUT: return HTTPError(.timedOut, "\(url): the server did not answer in time (\(reason))")
        case CURLE_COULDNT_RESOLVE_HOST:
            return HTTPError(.unreachable, "\(url): the server's name could not be resolved (DNS: no such host, or no network)")
        case CURLE_COULDNT_CONNECT:
            var osError = 0
            if let handle { pods_curl_get_long(handle, CURLINFO_OS_ERRNO, &osError) }
            if osError == Int(ECONNREFUSED) { return HTTPError(.unreachable, "\(url): the server refused the connection") }
            return HTTPError(.unreachable, "\(url): the server could not be reached (\(reason))")
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER,
             CURLE_SSL_ISSUER_ERROR, CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_INVALIDCERTSTATUS, CURLE_SSL_CRL_BADFILE,
             CURLE_SSL_SHUTDOWN_FAILED, CURLE_SSL_ENGINE_INITFAILED:
            return HTTPError(.unreachable, "\(url): the secure connection (TLS) failed: \(reason)")
        case CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_GOT_NOTHING, CURLE_PARTIAL_FILE:
            return HTTPError(.unreachable, "\(url): the connection broke (\(reason))")
        case CURLE_UNSUPPORTED_PROTOCOL, CURLE_URL_MALFORMAT: return HTTPError(.invalidURL, "\(url): \(reason)")
        case CURLE_TOO_MANY_REDIRECTS: return HTTPError(.other, "\(url): too many redirects")
        default: return HTTPError(.other, "\(url): \(reason)")
        }
    }

}

/// The head of the response a transfer is reading, filled by libcurl's
/// header callback (each redirect starts a new head), on the transfer's thread.
final class ResponseHeaders {
    /// The status of every response so far, redirects first.
    private(set) var statuses: [Int] = []
    /// The fields of the latest response, names lowercased.
    private(set) var fields: [(name: String, value: String)] = []

    /// The latest response's status (0 before any).
    var status: Int { statuses.last ?? 0 }

    /// The latest response's last value for `name` (lowercase).
    func field(_ name: String) -> String? { fields.last { $0.name == name }?.value }

    /// Makes libcurl hand `handle`'s header lines to this object, which must
    /// outlive the transfer.
    func install(on handle: UnsafeMutableRawPointer) {
        pods_curl_set_write_function(handle, CURLOPT_HEADERFUNCTION, Self.callback)
        pods_curl_set_pointer(handle, CURLOPT_HEADERDATA, Unmanaged.passUnretained(self).toOpaque())
    }

    private func receive(_ bytes: UnsafeRawBufferPointer) {
        let line = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        if line.hasPrefix("HTTP/") {
            let parts = line.split(separator: " ")
            if parts.count > 1, let status = Int(parts[1]) { statuses.append(status) }
            fields.removeAll()
        } else if let colon = line.firstIndex(of: ":") {
            fields.append((line[..<colon].lowercased(), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
    }

    private static let callback: @convention(c) (UnsafeMutablePointer<CChar>?, Int, Int, UnsafeMutableRawPointer?) -> Int = { data, size, count, context in
        guard let data, let context else { return 0 }
        Unmanaged<ResponseHeaders>.fromOpaque(context).takeUnretainedValue()
            .receive(UnsafeRawBufferPointer(start: data, count: size * count))
        return size * count
    }
}
