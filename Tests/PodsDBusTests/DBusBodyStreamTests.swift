import Foundation
import Glibc
import PodsDBus
import Testing

/// Frames through a real pipe: what a writer writes a reader reads, and a
/// reader that stops, a stream cut short or a frame too large each end in
/// one clear error.
@Suite(.timeLimit(.minutes(10))) struct DBusBodyStreamTests {
    @Test func framesComeOutAsTheyWentInThenTheEnd() throws {
        let (readEnd, writeEnd) = try DBusFileDescriptor.pipe()
        var bodies: [DBusWireBody] = []
        for index in 0..<40 {  // 40 × ~20 KB: more than a pipe holds, so the writer waits for the reader
            var writer = DBusWireWriter()
            let items = writer.beginArray(elementAlignment: 4)
            for _ in 0..<(index * 37 % 500) { writer.string("item \(index)") }
            writer.endArray(items)
            writer.int64(Int64(index))
            bodies.append(writer.body(signature: "asx"))
        }
        let sent = bodies
        // The thread owns a copy of the write end, closed when it is done: then the stream ends.
        let copy = dup(writeEnd.rawValue)
        _ = consume writeEnd
        Thread {
            let writer = DBusBodyStream.Writer(DBusFileDescriptor(adopting: copy), stallLimit: .seconds(10))
            for body in sent { try? writer.write(body) }
        }.start()
        var reader = DBusBodyStream.Reader(readEnd, signature: "asx")
        var got: [[UInt8]] = []
        while let body = try reader.next() {
            #expect(body.signature == "asx")
            got.append(body.bytes)
        }
        #expect(got == bodies.map(\.bytes))
    }

    @Test func aPipeHoldsSeveralPagesWhereTheSystemAllows() throws {
        let (read, write) = try DBusFileDescriptor.pipe()
        let allowed = (try? String(contentsOfFile: "/proc/sys/fs/pipe-max-size", encoding: .utf8))
            .flatMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) } ?? 0
        let getPipeSize: Int32 = 1032  // F_GETPIPE_SZ
        let size = fcntl(write.rawValue, getPipeSize)
        #expect(size == (allowed >= DBusFileDescriptor.pipeBytes ? DBusFileDescriptor.pipeBytes : 65536), "\(size) bytes")
        #expect(fcntl(read.rawValue, F_GETFD) & FD_CLOEXEC != 0 && fcntl(write.rawValue, F_GETFD) & FD_CLOEXEC != 0)
    }

    @Test func aWriterWhoseReaderStopsOrLeavesFailsOnce() throws {
        var body = DBusWireWriter()
        body.string(String(repeating: "x", count: 2 * Int(DBusFileDescriptor.pipeBytes)))  // more than the pipe holds
        let large = body.body(signature: "s")
        // Nobody reads: the pipe fills, and the writer gives up after its stall limit.
        let (idleRead, idleWrite) = try DBusFileDescriptor.pipe()
        let stalled = DBusBodyStream.Writer(idleWrite, stallLimit: .seconds(1))
        let start = ContinuousClock.now
        #expect(throws: DBusError.self) { try stalled.write(large) }
        #expect(ContinuousClock.now - start >= .seconds(1) && ContinuousClock.now - start < .seconds(5))
        _ = consume idleRead
        // The reader has gone: EPIPE, not SIGPIPE (this process does not ignore it, and would die of it).
        let (goneRead, goneWrite) = try DBusFileDescriptor.pipe()
        _ = consume goneRead
        do {
            try DBusBodyStream.Writer(goneWrite).write(large)
            Issue.record("wrote to a pipe with no reader")
        } catch {
            #expect(error.message.contains("closed"), "\(error.message)")
        }
    }

    /// A body longer than a frame may be is refused by the writer, whose
    /// length field would otherwise have been cut to 32 bits (REVIEW-2 F18).
    @Test func aWriterRefusesAFrameLongerThanAReaderTakes() throws {
        let (read, write) = try DBusFileDescriptor.pipe()
        var body = DBusWireWriter()
        body.string(String(repeating: "x", count: DBusBodyStream.maxFrameBytes))
        let tooLong = body.body(signature: "s")
        #expect(tooLong.bytes.count > DBusBodyStream.maxFrameBytes)
        do {
            try DBusBodyStream.Writer(write).write(tooLong)
            Issue.record("a frame of \(tooLong.bytes.count) bytes was written")
        } catch {
            #expect(error.message.contains("more than"), "\(error.message)")
        }
        var available: Int32 = 0
        #expect(ioctl(read.rawValue, UInt(FIONREAD), &available) == 0 && available == 0, "nothing was written")
    }

    @Test func aStreamCutShortOrAFrameTooLargeIsAnError() throws {
        // Cut inside a frame: the length says 100 bytes, 10 follow.
        let (cutRead, cutWrite) = try DBusFileDescriptor.pipe()
        var header: [UInt8] = [100, 0, 0, 0] + Array(repeating: 7, count: 10)
        #expect(write(cutWrite.rawValue, &header, header.count) == header.count)
        _ = consume cutWrite
        var cut = DBusBodyStream.Reader(cutRead, signature: "s")
        #expect(throws: DBusError.self) { _ = try cut.next() }
        // A frame longer than any stream may hold is refused before it is read.
        let (hugeRead, hugeWrite) = try DBusFileDescriptor.pipe()
        var huge: [UInt8] = [0xFF, 0xFF, 0xFF, 0x7F]
        #expect(write(hugeWrite.rawValue, &huge, huge.count) == huge.count)
        _ = consume hugeWrite
        var reader = DBusBodyStream.Reader(hugeRead, signature: "s")
        #expect(throws: DBusError.self) { _ = try reader.next() }
        // An empty stream is the end at once.
        let (emptyRead, emptyWrite) = try DBusFileDescriptor.pipe()
        _ = consume emptyWrite
        var empty = DBusBodyStream.Reader(emptyRead, signature: "s")
        #expect(try empty.next() == nil)
    }
}
