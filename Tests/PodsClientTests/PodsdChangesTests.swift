import Foundation
import PodsClient
import PodsDBus
import PodsProtocol
import PodsTestSupport
import Synchronization
import Testing

/// What the clients follow counts only from podsd: another client on the
/// bus that sends podsd's signals (or any MPRIS player's, at the path they
/// all share) makes no client read anything again.
@Suite(.timeLimit(.minutes(2))) struct PodsdChangesTests {
    @Test func signalsCountOnlyFromPodsdsNames() async throws {
        let podsd = try await PodsdProcess.start()
        let seen = Mutex<[String]>([])
        let following = Task.detached {
            await podsd.client.followChanges { change in seen.withLock { $0.append("\(change)") } }
        }
        defer { following.cancel() }
        try await Task.sleep(for: .milliseconds(300))  // the matches are in place
        let forger = try await DBusConnection.connect(address: podsd.bus.address)
        for signal in [LibrarySignal.podcastsChanged, LibrarySignal.queueChanged, LibrarySignal.bookmarksChanged].map(\.name) {
            try forger.emitSignal(path: LibraryNames.objectPath, interface: LibraryNames.interface, member: signal)
        }
        try forger.emitPropertiesChanged(path: MPRIS.objectPath, interface: MPRIS.playerInterface,
                                         changed: ["PlaybackStatus": .string("Playing")])
        try forger.emitSignal(path: MPRIS.objectPath, interface: MPRIS.playerInterface, member: MPRIS.seeked.name, arguments: [.int64(0)])
        try await Task.sleep(for: .milliseconds(500))
        #expect(seen.withLock { $0 } == [], "followed a forged signal: \(seen.withLock { $0 })")

        // podsd's own still count.
        #expect(await podsd.pods("play", Fixtures.sampleMP3.path).status == 0)
        try await waitFor(timeout: .seconds(5)) { seen.withLock { $0.contains("player") } }
    }
}
