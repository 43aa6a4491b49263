import Foundation

/// One episode's sparse scratch file: positioned reads and writes, and
/// `fdatasync` before ranges are recorded.
///
/// The descriptor is closed when the last reference goes, so a download
/// thread still writing never hits a number that was reused.
final class ScratchFile: Sendable {
    let path: String
    private let descriptor: Int32

    /// Opens `path`, creating it; `length` sets its size (a sparse file:
    /// holes take no disk space), nil keeps it as it is.
    init(path: String, length: Int64?) throws(CacheError) {
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw CacheError.system("cannot open \(path)") }
        if let length, ftruncate(descriptor, off_t(length)) != 0 {
            let error = CacheError.system("cannot size \(path)")
            close(descriptor)
            throw error
        }
        self.path = path
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }

    /// The file's size in bytes (nil if it cannot be read).
    var size: Int64? {
        var info = stat()
        return fstat(descriptor, &info) == 0 ? Int64(info.st_size) : nil
    }

    /// Reads into `buffer` from `offset`; the count read.
    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws(CacheError) -> Int {
        guard let base = buffer.baseAddress, !buffer.isEmpty else { return 0 }
        var done = 0
        while done < buffer.count {
            let count = pread(descriptor, base + done, buffer.count - done, off_t(offset) + off_t(done))
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { throw CacheError.system("cannot read \(path)") }
            if count == 0 { break }
            done += count
        }
        return done
    }

    /// Writes all of `bytes` at `offset`.
    func write(_ bytes: UnsafeRawBufferPointer, at offset: Int64) throws(CacheError) {
        guard let base = bytes.baseAddress else { return }
        var done = 0
        while done < bytes.count {
            let count = pwrite(descriptor, base + done, bytes.count - done, off_t(offset) + off_t(done))
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { throw CacheError.system("cannot write \(path)") }
            done += count
        }
    }

    /// Makes what was written durable.
    func sync() throws(CacheError) {
        guard fdatasync(descriptor) == 0 else { throw CacheError.system("cannot sync \(path)") }
    }

    /// Empties the file and sizes it again (the bytes were of another version).
    func reset(length: Int64) throws(CacheError) {
        guard ftruncate(descriptor, 0) == 0, ftruncate(descriptor, off_t(length)) == 0 else {
            throw CacheError.system("cannot reset \(path)")
        }
    }
}
