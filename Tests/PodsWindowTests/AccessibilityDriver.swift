import Foundation
import PodsTestSupport

/// Tests/Desktop/atspi-driver.py, run once per test in its loop mode: a
/// command a line in, a JSON answer a line out. Its pipe is read on a
/// thread of its own, never on the two threads the suites share.
final class AccessibilityDriver: Sendable {
    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private let reader = DispatchQueue(label: "pods.test.atspi")

    /// One answer; `ok` false means what was asked for was not found or not done.
    struct Answer: @unchecked Sendable {  // A JSON object's values (strings, numbers, arrays) read once, never shared mutably.
        let fields: [String: Any]
        var ok: Bool { fields["ok"] as? Bool ?? false }
        var names: [String] { fields["names"] as? [String] ?? [] }
        var unnamed: [String] { fields["unnamed"] as? [String] ?? [] }
        var value: Double? { fields["value"] as? Double }
        var name: String? { fields["name"] as? String }
        var text: String? { fields["text"] as? String }
    }

    func start(application pid: Int32, environment: [String: String]) async throws {
        let script = Fixtures.packageRoot.appendingPathComponent("Tests/Desktop/atspi-driver.py").path
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [script, String(pid)]
        process.environment = environment
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        guard try await line().ok else { throw TestSupportError("the window never appeared in the accessibility tree") }
    }

    /// Sends one command and reads its answer (a test awaits each before the next).
    @discardableResult
    func send(_ command: String) async throws -> Answer {
        input.fileHandleForWriting.write(Data((command + "\n").utf8))
        return try await line()
    }

    /// Waits for a node of `role` whose name matches `pattern`; fails after `seconds`.
    @discardableResult
    func wait(_ role: String, _ pattern: String, seconds: Double = 10) async throws -> Answer {
        let answer = try await send("wait \(Self.word(role)) \(Self.pattern(pattern)) \(seconds)")
        guard answer.ok else { throw TestSupportError("no \(role) named /\(pattern)/ within \(seconds) s") }
        return answer
    }

    /// Presses a button through its action.
    func press(_ role: String, _ pattern: String) async throws {
        let answer = try await send("press \(Self.word(role)) \(Self.pattern(pattern))")
        guard answer.ok else { throw TestSupportError("could not press the \(role) /\(pattern)/: \(answer.fields)") }
    }

    /// Activates a list row (its action, else focus and Return).
    func activate(_ pattern: String) async throws {
        let answer = try await send("activate list_item \(Self.pattern(pattern))")
        guard answer.ok else { throw TestSupportError("could not activate the row /\(pattern)/: \(answer.fields)") }
    }

    /// Sets a node's value (a slider) or text (an entry).
    func set(_ role: String, _ pattern: String, to value: String) async throws {
        let verb = role == "slider" ? "set-value" : "set-text"
        let answer = try await send("\(verb) \(Self.word(role)) \(Self.pattern(pattern)) \(value)")
        guard answer.ok else { throw TestSupportError("could not set the \(role) /\(pattern)/: \(answer.fields)") }
    }

    /// The text of a node (a text view's), through the Text interface.
    func text(_ role: String, _ pattern: String) async throws -> String {
        let answer = try await send("text \(Self.word(role)) \(Self.pattern(pattern))")
        guard answer.ok, let text = answer.text else { throw TestSupportError("no \(role) named /\(pattern)/ to read: \(answer.fields)") }
        return text
    }

    /// The controls without a name, by role, and how many controls the walk saw.
    func unnamed() async throws -> (unnamed: [String], seen: Int) {
        let answer = try await send("unnamed")
        return (answer.unnamed, answer.fields["controls"] as? Int ?? 0)
    }

    // The command line is split at spaces: roles spell theirs with `_`, patterns with `\s`.
    private static func word(_ role: String) -> String { role.replacingOccurrences(of: " ", with: "_") }
    private static func pattern(_ pattern: String) -> String { pattern.replacingOccurrences(of: " ", with: "\\s") }

    private func line() async throws -> Answer {
        let handle = output.fileHandleForReading
        let data = await withCheckedContinuation { (continuation: CheckedContinuation<Data, Never>) in
            reader.async {
                var line = Data()
                var byte = [UInt8](repeating: 0, count: 1)
                while read(handle.fileDescriptor, &byte, 1) == 1 {
                    if byte[0] == UInt8(ascii: "\n") { break }
                    line.append(byte[0])
                }
                continuation.resume(returning: line)
            }
        }
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw TestSupportError("the accessibility driver said: \(String(decoding: data, as: UTF8.self))")
        }
        return Answer(fields: object)
    }

    func stop() {
        try? input.fileHandleForWriting.close()
        if process.isRunning { process.terminate() }
    }
}
