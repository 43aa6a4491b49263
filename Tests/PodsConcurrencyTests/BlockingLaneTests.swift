import Foundation
import PodsConcurrency
import Synchronization
import Testing

@Suite(.timeLimit(.minutes(10))) struct BlockingLaneTests {
    /// Counts jobs running at once and the most seen.
    final class Occupancy: Sendable {
        private let state = Mutex((now: 0, most: 0))
        func enter() { state.withLock { $0.now += 1; $0.most = max($0.most, $0.now) } }
        func leave() { state.withLock { $0.now -= 1 } }
        var most: Int { state.withLock { $0.most } }
    }

    @Test func runsAtMostWidthJobsAtOnceOnItsOwnThreads() async throws {
        let lane = BlockingLane("test.lane", width: 2, niceness: 5)
        let occupancy = Occupancy()
        let threads = await withTaskGroup(of: (UInt, Bool).self) { group in
            for _ in 0..<12 {
                group.addTask {
                    await lane.run { () -> (UInt, Bool) in
                        occupancy.enter()
                        defer { occupancy.leave() }
                        usleep(20_000)  // blocking, as SQLite and parsing do
                        return (UInt(pthread_self()), lane.runsCurrentThread)
                    }
                }
            }
            return await group.reduce(into: [(UInt, Bool)]()) { $0.append($1) }
        }
        #expect(occupancy.most == 2)
        #expect(Set(threads.map(\.0)).count == 2 && threads.allSatisfy(\.1))
        #expect(getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0) == 0)  // the caller's priority is its own
    }

    @Test func errorsComeBackTyped() async {
        struct Failure: Error, Equatable {}
        let lane = BlockingLane("test.errors", width: 1)
        await #expect(throws: Failure()) { try await lane.run { () throws(Failure) -> Int in throw Failure() } }
        #expect(await lane.run { 41 + 1 } == 42)
    }

    @Test func tasksPreferringTheLaneRunOnItAndSoDoTheActorsTheyCall() async {
        actor Counter {
            var value = 0
            func bump(on lane: BlockingLane) -> Bool {
                value += 1
                return lane.runsCurrentThread
            }
        }
        let lane = BlockingLane("test.executor", width: 1)
        let counter = Counter()
        let onLane = await Task(executorPreference: lane) {
            [lane.runsCurrentThread, await counter.bump(on: lane)]
        }.value
        #expect(onLane == [true, true])
        #expect(!lane.runsCurrentThread)
    }

    @Test func aGateLetsAtMostItsWidthThrough() async {
        let gate = AsyncGate(width: 3)
        let occupancy = Occupancy()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<20 {
                group.addTask {
                    await gate.through {
                        occupancy.enter()
                        try? await Task.sleep(for: .milliseconds(5))
                        occupancy.leave()
                    }
                }
            }
        }
        #expect(occupancy.most == 3)
    }
}
