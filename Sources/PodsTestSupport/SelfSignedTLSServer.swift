import Foundation

/// An HTTPS server on loopback with a certificate nobody trusts (made
/// fresh with `openssl`, self-signed), as a misconfigured podcast host's:
/// a TLS failure a listener must be told of as one. Python's `http.server`
/// behind `ssl`; every GET is answered with three bytes.
public final class SelfSignedTLSServer: Sendable {
    public let port: Int
    private let process: Process
    private let directory: URL

    private init(port: Int, process: Process, directory: URL) {
        self.port = port
        self.process = process
        self.directory = directory
    }

    static let script = """
        import http.server, ssl, sys
        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                self.send_response(200)
                self.send_header("Content-Length", "3")
                self.end_headers()
                self.wfile.write(b"abc")
            def log_message(self, *arguments):
                pass
        server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(sys.argv[1], sys.argv[2])
        server.socket = context.wrap_socket(server.socket, server_side=True)
        print(server.server_address[1], flush=True)
        server.serve_forever()
        """

    public static func start() async throws -> SelfSignedTLSServer {
        let directory = try Fixtures.temporaryDirectory()
        let certificate = directory.appendingPathComponent("cert.pem").path, key = directory.appendingPathComponent("key.pem").path
        let made = await Subprocess.run("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", certificate,
                                                    "-days", "1", "-subj", "/CN=127.0.0.1"])
        guard made.status == 0 else { throw TestSupportError("openssl made no certificate: \(made)") }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", script, certificate, key]
        let line = try await Subprocess.firstLine(startingThe: process, threadName: "pods.test.tls")
        guard let port = Int(line) else {
            kill(process.processIdentifier, SIGKILL)
            throw TestSupportError("the TLS server did not start")
        }
        return SelfSignedTLSServer(port: port, process: process, directory: directory)
    }

    public func url(_ path: String) -> String { "https://127.0.0.1:\(port)\(path)" }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        try? FileManager.default.removeItem(at: directory)
    }
}
