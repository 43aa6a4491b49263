import Foundation

/// A finished command's exit status and output.
public struct CommandResult: Sendable, CustomStringConvertible {
    public var status: Int32
    public var stdout: String
    public var stderr: String
    /// Whether it was killed for taking too long.
    public var timedOut: Bool

    public var description: String { "exit \(status)\(timedOut ? " (timed out)" : "")\nstdout: \(stdout)\nstderr: \(stderr)" }
}

/// Runs programs for tests, with a time limit.
public enum Subprocess {
    /// Runs `executable` (a path, or a name looked up in PATH) to the end,
    /// killing it after `timeout`. With `outputFile`, its standard output
    /// goes straight to that file (as a shell's `>` would; `stdout` is then
    /// empty), so reading a large output costs this process nothing.
    public static func run(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:],
        timeout: Duration = .seconds(30), input: String? = nil, outputFile: URL? = nil
    ) async -> CommandResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: resolve(executable))
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let output = Pipe(), errors = Pipe()
        var outputHandle: FileHandle?
        if let outputFile {
            guard FileManager.default.createFile(atPath: outputFile.path, contents: nil),
                  let handle = try? FileHandle(forWritingTo: outputFile) else {
                return CommandResult(status: -1, stdout: "", stderr: "cannot write \(outputFile.path)", timedOut: false)
            }
            outputHandle = handle
            process.standardOutput = handle
            try? output.fileHandleForWriting.close()
        } else {
            process.standardOutput = output
        }
        defer { try? outputHandle?.close() }
        process.standardError = errors
        let inputPipe = input.map { _ in Pipe() }
        process.standardInput = inputPipe ?? FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            return CommandResult(status: -1, stdout: "", stderr: "cannot run \(executable): \(error)", timedOut: false)
        }
        // The child has its copies; the parent's write ends would keep the pipes open.
        try? output.fileHandleForWriting.close()
        try? errors.fileHandleForWriting.close()
        if let input, let inputPipe {  // small: fits the pipe's buffer, so writing cannot block
            inputPipe.fileHandleForWriting.write(Data(input.utf8))
            try? inputPipe.fileHandleForWriting.close()
        }
        // Read both pipes while waiting, so a chatty child cannot block on a
        // full pipe; on threads of their own, since a blocked read on the
        // cooperative pool (two threads on two cores) would starve the very
        // loop that enforces the timeout.
        async let out = readToEnd(output.fileHandleForReading)
        async let err = readToEnd(errors.fileHandleForReading)
        let deadline = ContinuousClock.now + timeout
        var timedOut = false
        while process.isRunning {
            if ContinuousClock.now > deadline {
                timedOut = true
                process.terminate()
                try? await Task.sleep(for: .milliseconds(200))
                if process.isRunning { kill(process.processIdentifier, SIGKILL) }
                break
            }
            try? await Task.sleep(for: .milliseconds(10))
        }
        while process.isRunning {  // after a kill; never waitUntilExit on the cooperative pool
            try? await Task.sleep(for: .milliseconds(10))
        }
        return CommandResult(
            status: process.terminationStatus, stdout: String(decoding: await out, as: UTF8.self),
            stderr: String(decoding: await err, as: UTF8.self), timedOut: timedOut)
    }

    private static func readToEnd(_ handle: FileHandle) async -> Data {
        await withCheckedContinuation { continuation in
            let thread = Thread {
                let data = handle.readDataToEndOfFile()
                try? handle.close()  // now, not at deinit: a poll of hundreds of commands ran out of descriptors
                continuation.resume(returning: data)
            }
            thread.name = "pods.test.pipe"
            thread.start()
        }
    }

    /// Starts `process` (its standard error discarded) and returns the first
    /// line it prints on standard output, trimmed (empty when it exits or
    /// closes its output first): a daemon's address, a server's port. The
    /// wait is on a thread of its own, not the cooperative pool (two threads
    /// on two cores), where a suite starting dozens at once would stall
    /// every other test.
    public static func firstLine(startingThe process: Process, threadName: String) async throws -> String {
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let reader = output.fileHandleForReading
        let line = await withCheckedContinuation { (continuation: CheckedContinuation<Data, Never>) in
            let thread = Thread {
                var line = Data()
                while !line.contains(UInt8(ascii: "\n")) {
                    let chunk = reader.availableData
                    if chunk.isEmpty { break }
                    line.append(chunk)
                }
                continuation.resume(returning: line)
            }
            thread.name = threadName
            thread.start()
        }
        return String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The full path of `name` from PATH (or `name` itself if it has a slash).
    public static func resolve(_ name: String) -> String {
        guard !name.contains("/") else { return name }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let candidate = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return name
    }
}
