import Foundation
import PodsConcurrency
import Testing

/// A child whose end cannot be learnt is no success (REVIEW-3, Everything
/// else 4: a failed waitpid returned status 0, which a caller took for "exited 0").
@Suite(.timeLimit(.minutes(10))) struct ChildProcessTests {
    @Test func anEndThatCannotBeLearntIsNotSuccess() async throws {
        // A child already waited for is no child any more: waitpid fails with ECHILD.
        let pid = try #require(ChildProcess.spawn(["/bin/sh", "-c", "exit 0"]))
        #expect(ChildProcess.wait(pid) == 0)
        #expect(ChildProcess.wait(pid) == ChildProcess.unknownEnd)
        #expect(await ChildProcess.exit(of: pid, killAfter: .seconds(1)) == ChildProcess.unknownEnd)
        #expect(ChildProcess.unknownEnd & 0x7F == 0 && (ChildProcess.unknownEnd >> 8) & 0xFF == 255)
    }

    @Test func aChildsOwnStatusComesBack() async throws {
        let pid = try #require(ChildProcess.spawn(["/bin/sh", "-c", "exit 3"]))
        #expect((await ChildProcess.exit(of: pid, killAfter: .seconds(10)) >> 8) & 0xFF == 3)
    }
}
