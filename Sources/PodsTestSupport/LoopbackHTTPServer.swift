import Foundation
import Synchronization

/// A small HTTP/1.1 server on 127.0.0.1 for tests: serves files with Range
/// support (If-Range honoured) and ETags (If-None-Match gives 304),
/// answers 404 for anything else, and counts the requests and bytes it
/// sends. Faults, pacing and a no-Range mode are set per path.
public final class LoopbackHTTPServer: Sendable {
    /// The port it listens on.
    public let port: UInt16
    public let host: String
    private let listener: Int32
    private let files: Mutex<[String: (data: Data, type: String, etag: String)]>
    private let redirects: [String: (status: Int, location: String)]
    private let sent = Mutex(0)
    private let delays = Mutex<[String: Duration]>([:])
    private let held = Mutex<Set<String>>([])
    private let faults = Mutex<[String: Fault]>([:])
    private let counts = Mutex<(requests: [String: Int], notModified: Int)>(([:], 0))
    private let sentByPath = Mutex<[String: Int]>([:])
    private let ignoringRange = Mutex<Set<String>>([])
    private let rates = Mutex<[String: Int]>([:])
    private let guarded = Mutex<[(prefix: String, authorization: String)]>([])
    private let offline = Mutex(false)
    private let handlers = Mutex<[(prefix: String, handle: @Sendable (Request) -> Response)]>([])
    private let stopped = Mutex(false)
    private let connections = Mutex(0)
    private let answering = Mutex((now: 0, most: 0))
    /// Answers several requests on one connection (HTTP/1.1 keep-alive)
    /// instead of closing after each.
    private let keepAlive: Bool

    /// `files` maps a path such as `/episode.mp3` to a file to serve;
    /// `redirects` maps a path to a status (301, 302, 307, 308) and a location.
    /// `host` is the loopback address to listen on (any of 127.0.0.0/8).
    public init(files: [String: URL], redirects: [String: (status: Int, location: String)] = [:],
                host: String = "127.0.0.1", keepAlive: Bool = false) throws {
        self.keepAlive = keepAlive
        var loaded: [String: (Data, String, String)] = [:]
        for (path, url) in files {
            let data = try Data(contentsOf: url)
            loaded[path] = (data, Self.type(of: url.pathExtension), Self.etag(of: data))
        }
        self.files = Mutex(loaded)
        self.redirects = redirects
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestSupportError("socket failed") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr(host)
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 128) == 0 else {
            close(fd)
            throw TestSupportError("bind/listen failed")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        self.port = UInt16(bigEndian: address.sin_port)
        self.host = host
        self.listener = fd
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    /// A request as a handler sees it.
    public struct Request: Sendable {
        public var method = "GET"
        /// The path and query, as sent (`/search?term=a+b`).
        public var target: String
        /// Header names in lower case.
        public var headers: [String: String]
        public var body = Data()

        public init(method: String = "GET", target: String, headers: [String: String] = [:], body: Data = Data()) {
            self.method = method
            self.target = target
            self.headers = headers
            self.body = body
        }

        /// The path without the query.
        public var path: String { String(target.split(separator: "?", maxSplits: 1).first ?? "") }

        /// The query's values, percent- and `+`-decoded.
        public var query: [String: String] {
            guard let query = target.split(separator: "?", maxSplits: 1).dropFirst().first else { return [:] }
            var values: [String: String] = [:]
            for pair in query.split(separator: "&") {
                let parts = pair.split(separator: "=", maxSplits: 1).map {
                    String($0).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String($0)
                }
                if parts.count == 2 { values[parts[0]] = parts[1] }
            }
            return values
        }
    }

    /// What a handler answers.
    public struct Response: Sendable {
        public var status: Int
        public var type: String
        public var body: Data
        /// More header fields (a `Date`, say).
        public var headers: [(name: String, value: String)]

        public init(status: Int = 200, type: String = "application/json", body: Data, headers: [(name: String, value: String)] = []) {
            self.status = status
            self.type = type
            self.body = body
            self.headers = headers
        }
    }

    /// Asks for HTTP Basic authentication as `user`/`password` on every path
    /// under `prefix` (a 401 with `WWW-Authenticate` otherwise).
    public func requireCredentials(_ prefix: String, user: String, password: String) {
        let token = Data("\(user):\(password)".utf8).base64EncodedString()
        guarded.withLock { $0.append((prefix, "Basic \(token)")) }
    }

    /// Answers every request whose path starts with `prefix` with `handle`
    /// (an API that looks at the query and the headers).
    public func setHandler(_ prefix: String, _ handle: @escaping @Sendable (Request) -> Response) {
        handlers.withLock { $0.append((prefix, handle)) }
    }

    /// `http://HOST:PORT/path`.
    public func url(_ path: String) -> String { "http://\(host):\(port)\(path)" }

    /// Answers requests for `path` only after `delay` (a slow server).
    public func setDelay(_ path: String, _ delay: Duration) { delays.withLock { $0[path] = delay } }

    /// Answers requests for `path` only once `release(_:)` is called: a
    /// server as slow as the test needs, whatever the load on the machine.
    public func hold(_ path: String) { _ = held.withLock { $0.insert(path) } }

    /// Answers the requests for `path` held so far and those to come.
    public func release(_ path: String) { _ = held.withLock { $0.remove(path) } }

    /// A way to fail requests for a path.
    public enum Fault: Sendable {
        /// Answer with this status and a short body.
        case status(Int)
        /// Promise the whole file, send this many bytes of it, then close.
        case dropAfter(Int)
        /// Answer ranges truly, but say in `Content-Range` that the whole file is this long.
        case claimsLength(Int64)
    }

    /// Fails every request for `path` this way (nil: serve it normally again).
    public func setFault(_ path: String, _ fault: Fault?) { faults.withLock { $0[path] = fault } }

    /// Body bytes sent so far.
    public var bytesSent: Int { sent.withLock { $0 } }

    /// Body bytes sent so far for `path` (what reached the socket).
    public func bytesSent(for path: String) -> Int { sentByPath.withLock { $0[path, default: 0] } }

    /// Makes `path` answer every request with the whole file (200), as
    /// servers without Range support do.
    public func setIgnoresRange(_ path: String, _ ignores: Bool) {
        ignoringRange.withLock { if ignores { $0.insert(path) } else { $0.remove(path) } }
    }

    /// Sends `path`'s bodies at about this many bytes a second (nil: as fast as it can).
    public func setRate(_ path: String, bytesPerSecond: Int?) { rates.withLock { $0[path] = bytesPerSecond } }

    /// Serves `data` at `path` from now on (its ETag changes with it).
    public func setFile(_ path: String, _ data: Data, type: String = "application/rss+xml") {
        let etag = Self.etag(of: data)
        files.withLock { $0[path] = (data, type, etag) }
    }

    /// A strong validator that changes with the bytes (FNV-1a of them).
    private static func etag(of data: Data) -> String {
        let hash = data.withUnsafeBytes { bytes in
            bytes.reduce(into: UInt32(2166136261)) { $0 = ($0 ^ UInt32($1)) &* 16777619 }
        }
        return "\"\(data.count)-\(hash)\""
    }

    /// Connections accepted so far.
    public var connectionsAccepted: Int { connections.withLock { $0 } }

    /// The most requests it was answering at one time.
    public var mostRequestsAtOnce: Int { answering.withLock { $0.most } }

    /// Requests for `path` so far.
    public func requests(for path: String) -> Int { counts.withLock { $0.requests[path, default: 0] } }

    /// 304 answers so far.
    public var notModifiedCount: Int { counts.withLock { $0.notModified } }

    private static func type(of pathExtension: String) -> String {
        switch pathExtension {
        case "ogg": "audio/ogg"
        case "mp3": "audio/mpeg"
        case "m4a": "audio/mp4"
        case "xml", "rss": "application/rss+xml"
        case "opml": "text/x-opml"
        default: "text/plain"
        }
    }

    /// Stops listening; later calls do nothing. (A second close would hit
    /// whatever descriptor had since reused the number: a pipe or a bus socket.)
    public func stop() {
        let wasStopped = stopped.withLock { stopped in
            defer { stopped = true }
            return stopped
        }
        guard !wasStopped else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    deinit { stop() }

    private func acceptLoop() {
        while !stopped.withLock({ $0 }) {
            let client = accept(listener, nil, nil)
            guard client >= 0 else { return }
            connections.withLock { $0 += 1 }
            let thread = Thread { [self] in serve(client) }
            thread.start()
        }
    }

    /// Closes every connection at once, unanswered (a network that is down).
    public func setOffline(_ offline: Bool) { self.offline.withLock { $0 = offline } }

    private func serve(_ client: Int32) {
        defer { close(client) }
        if offline.withLock({ $0 }) { return }
        var pending = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        repeat {
            var end = pending.range(of: Data("\r\n\r\n".utf8))
            while end == nil {
                let count = read(client, &buffer, buffer.count)
                guard count > 0 else { return }
                pending.append(contentsOf: buffer[0..<count])
                end = pending.range(of: Data("\r\n\r\n".utf8))
            }
            guard let end else { return }
            let request = pending.subdata(in: pending.startIndex..<end.upperBound)
            pending = pending.subdata(in: end.upperBound..<pending.endIndex)
            // A body (a POST's) as long as Content-Length says.
            let length = String(decoding: request, as: UTF8.self).components(separatedBy: "\r\n")
                .first { $0.lowercased().hasPrefix("content-length:") }
                .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
            while pending.count < length {
                let count = read(client, &buffer, buffer.count)
                guard count > 0 else { return }
                pending.append(contentsOf: buffer[0..<count])
            }
            let body = pending.prefix(length)
            pending = pending.dropFirst(length)
            answering.withLock { $0.now += 1; $0.most = max($0.most, $0.now) }
            let open = answer(request, body: Data(body), on: client)
            answering.withLock { $0.now -= 1 }
            guard open else { return }
        } while keepAlive
    }

    /// Answers one request; whether the connection can take another.
    private func answer(_ request: Data, body: Data, on client: Int32) -> Bool {
        let connection = keepAlive ? "keep-alive" : "close"
        let lines = String(decoding: request, as: UTF8.self).components(separatedBy: "\r\n")
        let parts = lines.first?.split(separator: " ") ?? []
        let path = parts.count > 1 ? String(parts[1]) : "/"
        counts.withLock { $0.requests[path, default: 0] += 1 }
        if let delay = delays.withLock({ $0[path] }) {
            usleep(UInt32(delay.components.seconds * 1_000_000 + delay.components.attoseconds / 1_000_000_000_000))
        }
        while held.withLock({ $0.contains(path) }), !stopped.withLock({ $0 }) { usleep(10_000) }
        if let guardRule = guarded.withLock({ $0.first { path.hasPrefix($0.prefix) } }) {
            let given = lines.first { $0.lowercased().hasPrefix("authorization:") }.map {
                $0.dropFirst("authorization:".count).trimmingCharacters(in: .whitespaces)
            }
            if given != guardRule.authorization {
                return send(client, head: "HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Basic realm=\"private\"\r\nContent-Length: 12\r\nConnection: \(connection)\r\n\r\n", body: Data("unauthorized".utf8))
            }
        }
        if let handler = handlers.withLock({ $0.first { path.hasPrefix($0.prefix) } }) {
            var headers: [String: String] = [:]
            for line in lines.dropFirst() {
                guard let colon = line.firstIndex(of: ":") else { continue }
                headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
            let method = parts.first.map(String.init) ?? "GET"
            let response = handler.handle(Request(method: method, target: path, headers: headers, body: body))
            let extra = response.headers.map { "\($0.name): \($0.value)\r\n" }.joined()
            return send(client, head: "HTTP/1.1 \(response.status) Answer\r\nContent-Type: \(response.type)\r\n\(extra)Content-Length: \(response.body.count)\r\nConnection: \(connection)\r\n\r\n", body: response.body, path: path)
        }
        if let redirect = redirects[path] {
            return send(client, head: "HTTP/1.1 \(redirect.status) Moved\r\nLocation: \(redirect.location)\r\nContent-Length: 0\r\nConnection: \(connection)\r\n\r\n", body: Data())
        }
        var cutAfter: Int?
        var claimedLength: Int64?
        switch faults.withLock({ $0[path] }) {
        case .status(let status):
            _ = send(client, head: "HTTP/1.1 \(status) Failed\r\nContent-Length: 6\r\nConnection: close\r\n\r\n", body: Data("failed".utf8))
            return false
        case .dropAfter(let count):
            cutAfter = count
        case .claimsLength(let length):
            claimedLength = length
        case nil:
            break
        }
        guard let file = files.withLock({ $0[path] }) else {
            return send(client, head: "HTTP/1.1 404 Not Found\r\nContent-Length: 9\r\nConnection: \(connection)\r\n\r\n", body: Data("not found".utf8))
        }
        let etag = file.etag
        if let condition = lines.first(where: { $0.lowercased().hasPrefix("if-none-match:") }),
           condition.dropFirst("if-none-match:".count).trimmingCharacters(in: .whitespaces) == etag {
            counts.withLock { $0.notModified += 1 }
            return send(client, head: "HTTP/1.1 304 Not Modified\r\nETag: \(etag)\r\nConnection: \(connection)\r\n\r\n", body: Data())
        }
        var range = lines.first { $0.lowercased().hasPrefix("range: bytes=") }.flatMap { parseRange($0, size: file.data.count) }
        if ignoringRange.withLock({ $0.contains(path) }) { range = nil }
        // If-Range with another validator: the whole (new) file, as RFC 9110 says.
        if let condition = lines.first(where: { $0.lowercased().hasPrefix("if-range:") }),
           condition.dropFirst("if-range:".count).trimmingCharacters(in: .whitespaces) != etag {
            range = nil
        }
        if let range {
            let body = file.data.subdata(in: range).prefix(cutAfter ?? .max)
            return send(client, head: "HTTP/1.1 206 Partial Content\r\nContent-Type: \(file.type)\r\nETag: \(etag)\r\nAccept-Ranges: bytes\r\nContent-Range: bytes \(range.lowerBound)-\(range.upperBound - 1)/\(claimedLength.map(String.init) ?? String(file.data.count))\r\nContent-Length: \(body.count)\r\nConnection: \(cutAfter == nil ? connection : "close")\r\n\r\n", body: body, path: path) && cutAfter == nil
        } else {
            return send(client, head: "HTTP/1.1 200 OK\r\nContent-Type: \(file.type)\r\nETag: \(etag)\r\nAccept-Ranges: bytes\r\nContent-Length: \(file.data.count)\r\nConnection: \(cutAfter == nil ? connection : "close")\r\n\r\n", body: file.data.prefix(cutAfter ?? .max), path: path) && cutAfter == nil
        }
    }

    private func parseRange(_ line: String, size: Int) -> Range<Int>? {
        let spec = line.dropFirst("range: bytes=".count).split(separator: "-", omittingEmptySubsequences: false)
        guard spec.count == 2, let start = Int(spec[0].trimmingCharacters(in: .whitespaces)), start < size else { return nil }
        let end = Int(spec[1].trimmingCharacters(in: .whitespaces)).map { min($0 + 1, size) } ?? size
        return start < end ? start..<end : nil
    }

    /// Whether it was all sent.
    @discardableResult
    private func send(_ client: Int32, head: String, body: Data, path: String = "") -> Bool {
        guard writeAll(client, Data(head.utf8)) else { return false }
        var offset = 0
        while offset < body.count {
            // Paced bodies go in tenth-of-a-second slices; the pace is read
            // again for each, so a change applies to answers under way.
            let bytesPerSecond = rates.withLock { $0[path] }
            let chunkSize = bytesPerSecond.map { max(1024, $0 / 10) } ?? 65536
            let chunk = body.subdata(in: offset..<min(offset + chunkSize, body.count))
            guard writeAll(client, chunk) else { return false }
            sent.withLock { $0 += chunk.count }
            sentByPath.withLock { $0[path, default: 0] += chunk.count }
            offset += chunk.count
            if let bytesPerSecond { usleep(UInt32(min(1_000_000, 1_000_000 * chunk.count / max(1, bytesPerSecond)))) }
        }
        return true
    }

    private func writeAll(_ client: Int32, _ data: Data) -> Bool {
        data.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let written = Glibc.send(client, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))  // safe: non-empty buffer
                if written <= 0 { return false }
                offset += written
            }
            return true
        }
    }
}
