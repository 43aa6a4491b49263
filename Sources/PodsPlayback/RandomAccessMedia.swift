/// The bytes of one media file, readable at any offset, that may still be
/// arriving (a range cache in front of a network download).
///
/// The pipeline reads it from GStreamer's streaming threads: `read` may
/// block until the bytes are there, but must come back once `shouldStop`
/// turns true (checked at least every few tens of milliseconds, and at once
/// after `interruptReads()`).
public protocol RandomAccessMedia: AnyObject, Sendable {
    /// The file's length in bytes, known before playback starts.
    var length: Int64 { get }
    /// True when any offset can be read without waiting for all bytes
    /// before it (the server answers Range requests); false lets the
    /// pipeline read front to back instead of probing the end first.
    var supportsRandomAccess: Bool { get }
    /// Fills `buffer` with the bytes from `offset` (fewer only at the end of
    /// the file), waiting for them to arrive.
    func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer, shouldStop: () -> Bool) -> MediaReadResult
    /// Like `read`, for a reader that looks at a few bytes (a tag) instead
    /// of playing through: nothing beyond them is read ahead.
    func peek(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer, shouldStop: () -> Bool) -> MediaReadResult
    /// Wakes every blocked `read` so it re-checks its `shouldStop`.
    func interruptReads()
}

extension RandomAccessMedia {
    public func peek(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer, shouldStop: () -> Bool) -> MediaReadResult {
        read(at: offset, into: buffer, shouldStop: shouldStop)
    }
}

/// What a `RandomAccessMedia.read` did.
public enum MediaReadResult: Sendable, Equatable {
    /// This many bytes were copied.
    case bytes(Int)
    /// `shouldStop` turned true first; nothing was copied.
    case interrupted
    /// The bytes cannot come (the server failed for good); the pipeline stops with this message.
    case failed(String)
}
