import Glibc

/// Message bodies sent through a file descriptor passed in a call (`h`)
/// instead of as replies: a long listing goes straight from the service to
/// its client, and the bus daemon, which relays messages one at a time and
/// checks every byte of each, never carries it. So a media key that
/// arrives during the listing waits behind no page of it (as systemd's
/// `DumpByFileDescriptor` keeps its dumps off the bus).
///
/// A frame is the body's length as a little-endian `u32`, then the body in
/// the D-Bus wire format (little-endian, aligned from the body's start);
/// the stream's signature is the method's contract. The end of the stream
/// is the end of the file.
public enum DBusBodyStream {
    /// The largest frame a reader takes: a body this long is an error.
    public static let maxFrameBytes = 4 << 20

    /// Writes frames into a descriptor, waiting while the reader is behind;
    /// fails when the reader has gone or takes nothing for `stallLimit`.
    public struct Writer: Sendable {
        private let descriptor: DBusFileDescriptor
        private let stallLimit: Duration

        /// Writes into `descriptor` (made non-blocking here).
        public init(_ descriptor: DBusFileDescriptor, stallLimit: Duration = .seconds(30)) {
            self.descriptor = descriptor
            self.stallLimit = stallLimit
            let flags = fcntl(descriptor.rawValue, F_GETFL)
            if flags >= 0 { _ = fcntl(descriptor.rawValue, F_SETFL, flags | O_NONBLOCK) }
        }

        /// Writes one frame; blocks the calling thread while the reader is behind.
        public func write(_ body: DBusWireBody) throws(DBusError) {
            // A frame longer than a reader takes is refused here, never written with its length cut to 32 bits.
            guard body.bytes.count <= DBusBodyStream.maxFrameBytes else {
                throw .failed("a frame of \(body.bytes.count) bytes, more than the \(DBusBodyStream.maxFrameBytes) a stream may hold")
            }
            // The length, then the body as it is (not copied behind the length).
            let length = UInt32(body.bytes.count).littleEndian
            var failure: DBusError?
            withUnsafeBytes(of: length) { header in
                body.bytes.withUnsafeBytes { bytes in
                    do throws(DBusError) { try writeAll(header, bytes) } catch { failure = error }
                }
            }
            if let failure { throw failure }
        }

        private func writeAll(_ parts: UnsafeRawBufferPointer...) throws(DBusError) {
            // A reader that closed its end raises SIGPIPE, which kills a process that
            // does not ignore it: blocked on this thread while writing, it stays
            // pending, is taken back, and the write fails with EPIPE instead.
            var pipeSignal = sigset_t()
            sigemptyset(&pipeSignal)
            sigaddset(&pipeSignal, SIGPIPE)
            var previous = sigset_t()
            pthread_sigmask(SIG_BLOCK, &pipeSignal, &previous)
            defer {
                var pending = sigset_t()
                sigpending(&pending)
                if sigismember(&previous, SIGPIPE) == 0, sigismember(&pending, SIGPIPE) == 1 {
                    var now = timespec()
                    _ = sigtimedwait(&pipeSignal, nil, &now)
                }
                pthread_sigmask(SIG_SETMASK, &previous, nil)
            }
            for bytes in parts {
                var offset = 0
                while offset < bytes.count, let base = bytes.baseAddress {
                    let written = Glibc.write(descriptor.rawValue, base + offset, bytes.count - offset)
                    if written > 0 {
                        offset += written
                    } else if written < 0, errno == EINTR {
                        continue
                    } else if written < 0, errno == EAGAIN || errno == EWOULDBLOCK {
                        try waitWritable()
                    } else {
                        throw .failed(errno == EPIPE ? "the reader closed the stream" : "writing the stream failed: errno \(errno)")
                    }
                }
            }
        }

        private func waitWritable() throws(DBusError) {
            var poller = pollfd(fd: descriptor.rawValue, events: Int16(POLLOUT), revents: 0)
            let milliseconds = Int32(clamping: stallLimit.components.seconds * 1000)
            let ready = poll(&poller, 1, milliseconds)
            if ready == 0 { throw .failed("the reader took nothing for \(stallLimit.components.seconds) s") }
            if ready < 0, errno != EINTR { throw .failed("waiting on the stream failed: errno \(errno)") }
        }
    }

    /// Reads frames from a descriptor, blocking, until the end of the file.
    public struct Reader: ~Copyable {
        private let descriptor: DBusFileDescriptor
        private let signature: String
        private var buffer: [UInt8] = []
        private var start = 0
        private var ended = false

        /// Reads the frames in `descriptor`, each a body of `signature`.
        public init(_ descriptor: DBusFileDescriptor, signature: String) {
            self.descriptor = descriptor
            self.signature = signature
        }

        /// The next body; nil at the end of the stream.
        public mutating func next() throws(DBusError) -> DBusReplyBody? {
            guard try fill(4) else { return nil }
            var length = 0
            for index in 0..<4 { length |= Int(buffer[start + index]) << (8 * index) }
            guard length <= DBusBodyStream.maxFrameBytes else {
                throw .failed("a frame of \(length) bytes, more than the \(DBusBodyStream.maxFrameBytes) a stream may hold")
            }
            guard try fill(4 + length) else { throw .failed("the stream ended inside a frame") }
            let body = Array(buffer[(start + 4)..<(start + 4 + length)])
            start += 4 + length
            return DBusReplyBody(signature: signature, bytes: body)
        }

        /// Whether `count` bytes from `start` are buffered, reading more as
        /// needed; false when the stream ends first.
        private mutating func fill(_ count: Int) throws(DBusError) -> Bool {
            while buffer.count - start < count {
                if ended { return false }
                if start > 0 {
                    buffer.removeSubrange(0..<start)
                    start = 0
                }
                let chunk = max(64 << 10, count - buffer.count)
                let before = buffer.count
                buffer.reserveCapacity(before + chunk)
                var failure: Int32 = 0
                buffer.append(contentsOf: repeatElement(0, count: chunk))
                let got = buffer.withUnsafeMutableBytes { raw in
                    guard let base = raw.baseAddress else { return 0 }
                    while true {
                        let got = read(descriptor.rawValue, base + before, chunk)  // the buffer holds before + chunk bytes
                        if got < 0, errno == EINTR { continue }
                        if got < 0 { failure = errno }
                        return got
                    }
                }
                buffer.removeSubrange(before + max(0, got)..<buffer.count)
                if got < 0 { throw .failed("reading the stream failed: errno \(failure)") }
                if got == 0 { ended = true }
            }
            return true
        }
    }
}
