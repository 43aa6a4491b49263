import Foundation
import PodsTestSupport

/// nginx on a loopback port serving a folder: keep-alive, ETags from each
/// file's time and size (so `touch` changes them, as on real servers),
/// `If-None-Match` answered with 304, feeds as `application/rss+xml; charset=utf-8`.
final class Nginx: Sendable {
    let baseURL: String
    private let process: Process

    init(root: URL, directory: URL) throws {
        let binary = ["/usr/sbin/nginx", "/usr/bin/nginx"].first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let binary else {
            throw TestSupportError("nginx is not installed (./scripts/install-deps --bench installs nginx-light)")
        }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let port = try Self.freePort()
        let config = """
            daemon off; master_process off; worker_processes 1; pid \(directory.path)/nginx.pid;
            error_log stderr error;
            events { worker_connections 1024; }
            http {
                access_log off;
                client_body_temp_path \(directory.path)/body; proxy_temp_path \(directory.path)/proxy;
                fastcgi_temp_path \(directory.path)/fastcgi; uwsgi_temp_path \(directory.path)/uwsgi; scgi_temp_path \(directory.path)/scgi;
                types { application/rss+xml xml; text/x-opml opml; }
                charset utf-8; charset_types application/rss+xml text/x-opml;
                keepalive_requests 10000; sendfile on;
                server { listen 127.0.0.1:\(port); root \(root.path); }
            }
            """
        let configFile = directory.appendingPathComponent("nginx.conf")
        try config.write(to: configFile, atomically: true, encoding: .utf8)
        process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["-c", configFile.path, "-p", directory.path, "-e", "stderr"]
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        baseURL = "http://127.0.0.1:\(port)"
        for _ in 0..<100 {
            if Self.accepts(port) { return }
            usleep(20_000)
        }
        process.terminate()
        throw TestSupportError("nginx did not start on port \(port)")
    }

    func stop() { if process.isRunning { process.terminate() } }

    private static func freePort() throws -> UInt16 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard ok else { throw TestSupportError("no free port") }
        return UInt16(bigEndian: address.sin_port)
    }

    private static func accepts(_ port: UInt16) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = port.bigEndian
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }
}
