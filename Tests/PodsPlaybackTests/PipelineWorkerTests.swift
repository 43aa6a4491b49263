import Foundation
@testable import PodsPlayback
import Synchronization
import Testing

/// The worker's promises, with plain closures standing in for GStreamer
/// calls: answers in order, never holds its caller past the answer limit,
/// and calls a stall once.
@Suite(.timeLimit(.minutes(2))) struct PipelineWorkerTests {
    final class Log: Sendable {
        let entries = Mutex<[String]>([])
        let stalls = Atomic<Int>(0)
        func add(_ entry: String) { entries.withLock { $0.append(entry) } }
    }

    @Test func answersInOrderWhileTheyAreQuick() {
        let log = Log()
        let worker = PipelineWorker(answerLimit: .seconds(1), stallLimit: .seconds(5)) { log.stalls.add(1, ordering: .relaxed) }
        for number in 0..<100 {
            #expect(worker.run { log.add("\(number)"); return number } == number)
        }
        #expect(log.entries.withLock { $0 } == (0..<100).map(String.init))
        #expect(log.stalls.load(ordering: .relaxed) == 0)
    }

    @Test func aSlowOperationIsLeftToFinishAndLaterOnesQueueWithoutWaiting() async throws {
        let log = Log()
        let worker = PipelineWorker(answerLimit: .milliseconds(200), stallLimit: .seconds(5)) { log.stalls.add(1, ordering: .relaxed) }
        var started = ContinuousClock.now
        let slow = worker.run { Thread.sleep(forTimeInterval: 1); log.add("slow"); return 1 }
        #expect(slow == nil)
        #expect(ContinuousClock.now - started < .milliseconds(600))
        started = ContinuousClock.now
        let behind = worker.run { log.add("behind"); return 2 }
        #expect(behind == nil, "asked while the slow one still runs: not waited for")
        #expect(ContinuousClock.now - started < .milliseconds(100))
        // Once the queue drains, the worker is waited for again, in the same order.
        try await Task.sleep(for: .milliseconds(1200))
        #expect(worker.run { log.add("after"); return 3 } == 3)
        #expect(log.entries.withLock { $0 } == ["slow", "behind", "after"])
        #expect(log.stalls.load(ordering: .relaxed) == 0, "slow, not stalled")
        #expect(!worker.hasStalled)
    }

    @Test func aStuckOperationIsAStallOnceAndNothingWaitsForItAgain() async throws {
        let log = Log()
        let release = DispatchSemaphore(value: 0)
        let worker = PipelineWorker(answerLimit: .milliseconds(100), stallLimit: .milliseconds(500)) {
            log.stalls.add(1, ordering: .relaxed)
        }
        defer { release.signal() }
        #expect(worker.run { release.wait(); return 0 } == nil)
        for _ in 0..<5 { worker.run { log.add("queued") } }
        try await Task.sleep(for: .seconds(1))
        #expect(worker.hasStalled)
        #expect(log.stalls.load(ordering: .relaxed) == 1)
        let started = ContinuousClock.now
        #expect(worker.run { 1 } == nil)
        #expect(ContinuousClock.now - started < .milliseconds(50), "a stalled worker is never waited for")
        #expect(log.entries.withLock { $0 }.isEmpty, "nothing ran past the stuck one")
    }
}
