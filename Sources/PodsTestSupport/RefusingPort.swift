import Foundation

/// A loopback port where nothing listens and nothing can start to while
/// this lives: a socket bound to it without `listen`, so a connection is
/// refused. (A closed server's port was taken by another suite's server
/// in the parallel run, and a "dead" address answered 200.)
public final class RefusingPort: Sendable {
    public let port: UInt16
    private let socketFD: Int32

    public init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestSupportError("socket failed") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else {
            close(fd)
            throw TestSupportError("bind failed")
        }
        socketFD = fd
        port = UInt16(bigEndian: address.sin_port)
    }

    deinit { close(socketFD) }
}
