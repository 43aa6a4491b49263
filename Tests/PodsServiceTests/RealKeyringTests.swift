import Foundation
import PodsClient
import PodsTestSupport
import Testing

/// Private feeds' passwords in the desktop's real keyring: GNOME Keyring's
/// own daemon (`gnome-keyring-daemon`) on the test's bus, in a home of its
/// own. Where the keyring had no login collection (a fresh account, a
/// sway/i3 session that never unlocked one), `pods subscribe --user` failed
/// with "Object does not exist at path …/collection/login"; a locked one got
/// "unlock it and subscribe again" instead of the unlock prompt.
///
/// Nothing can answer the real daemon's prompts here (there is no prompter
/// on a hermetic bus, so each is dismissed, as a listener pressing Cancel);
/// `KeyringPromptTests` answers them with the stand-in.
@Suite(.timeLimit(.minutes(10)), .enabled(if: GnomeKeyring.isInstalled)) struct RealKeyringTests {
    static let subscribeTimeout = Duration.seconds(60)

    func subscribe(_ podsd: PodsdProcess, _ server: LoopbackHTTPServer) async -> CommandResult {
        await podsd.run(Fixtures.executable("pods"), ["subscribe", server.url("/private/feed.xml"), "--user", "alice", "--password-stdin"],
                        timeout: Self.subscribeTimeout, input: "s3cret-pw\n")
    }

    @Test func anUnlockedLoginKeyringKeepsThePassword() async throws {
        let server = try PrivateFeedTests.server()
        defer { server.stop() }
        let bus = try await PrivateBus.start()
        let keyring = try await GnomeKeyring.start(on: bus, unlockedLogin: true)
        let directory = try Fixtures.temporaryDirectory()
        let podsd = try await PodsdProcess.start(bus: bus, directory: directory)
        let result = await subscribe(podsd, server)
        #expect(result.status == 0, "\(result)")
        #expect(try await keyring.podsItemLabels(on: bus) == ["Pods: \(HTTPOrigin.of(server))"])
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("data/credentials.json").path))
        // The next podsd reads it back from the keyring: its refresh gets in.
        #expect(await podsd.signal(SIGTERM)?.status == 0)
        let again = try await PodsdProcess.start(bus: bus, directory: directory)
        let refreshed = try await LibraryClient(again.client).refreshJSON()
        #expect(refreshed.count == 1 && refreshed.allSatisfy { $0["error"] is NSNull }, "\(refreshed)")
    }

    @Test func withNoKeyringItsPromptIsShownAndADismissalKeepsNothing() async throws {
        let server = try PrivateFeedTests.server()
        defer { server.stop() }
        let bus = try await PrivateBus.start()
        let keyring = try await GnomeKeyring.start(on: bus, unlockedLogin: false)
        let directory = try Fixtures.temporaryDirectory()
        let podsd = try await PodsdProcess.start(bus: bus, directory: directory)
        let result = await subscribe(podsd, server)
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr.contains("the keyring's prompt to make a keyring was dismissed; nothing was kept"), "\(result.stderr)")
        #expect(!result.stderr.contains("does not exist"), "\(result.stderr)")
        #expect(result.stderr.trimmingCharacters(in: .newlines).split(separator: "\n").count == 1, "one line: \(result.stderr)")
        #expect(try await keyring.podsItemLabels(on: bus).isEmpty)
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("data/credentials.json").path))
        #expect(try await LibraryClient(podsd.client).podcastsJSON().isEmpty, "no podcast without its password")
        #expect(podsd.isRunning)
    }

    @Test func aLockedKeyringIsUnlockedWithItsPromptAndADismissalKeepsNothing() async throws {
        let server = try PrivateFeedTests.server()
        defer { server.stop() }
        let bus = try await PrivateBus.start()
        let keyring = try await GnomeKeyring.start(on: bus, unlockedLogin: true)
        try await keyring.lockAll(on: bus)
        let directory = try Fixtures.temporaryDirectory()
        let podsd = try await PodsdProcess.start(bus: bus, directory: directory)
        let result = await subscribe(podsd, server)
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr.contains("the keyring's prompt to unlock the keyring was dismissed; nothing was kept"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("data/credentials.json").path))
        // Nothing means nothing: no podcast left without its password (ADVERSARIAL-5, 4).
        #expect(try await LibraryClient(podsd.client).podcastsJSON().isEmpty)
    }

    /// A password kept in the file (no keyring when it was given) moves into
    /// the keyring at the first start that has one, and the file goes.
    @Test func aPasswordInTheFileMovesIntoTheKeyringWhenOneAppears() async throws {
        let server = try PrivateFeedTests.server()
        defer { server.stop() }
        let bus = try await PrivateBus.start()
        let directory = try Fixtures.temporaryDirectory()
        let file = directory.appendingPathComponent("data/credentials.json")
        do {
            let podsd = try await PodsdProcess.start(bus: bus, directory: directory)
            #expect(await subscribe(podsd, server).status == 0)
            #expect(FileManager.default.fileExists(atPath: file.path))
            #expect(await podsd.signal(SIGTERM)?.status == 0)
        }
        let keyring = try await GnomeKeyring.start(on: bus, unlockedLogin: true)
        let podsd = try await PodsdProcess.start(bus: bus, directory: directory)
        try await waitFor(timeout: .seconds(20)) { !FileManager.default.fileExists(atPath: file.path) }
        #expect(try await keyring.podsItemLabels(on: bus) == ["Pods: \(HTTPOrigin.of(server))"])
        let refreshed = try await LibraryClient(podsd.client).refreshJSON()
        #expect(refreshed.count == 1 && refreshed.allSatisfy { $0["error"] is NSNull }, "\(refreshed)")
    }
}

/// The keyring's prompts answered (by the stand-in: nothing answers the
/// real daemon's on a test's bus): a keyring made when there is none, a
/// locked one unlocked, at a subscription and at start, and a prompt nobody
/// answers never holds up podsd's start.
@Suite(.timeLimit(.minutes(10))) struct KeyringPromptTests {
    func subscribe(_ podsd: PodsdProcess, _ server: LoopbackHTTPServer) async -> CommandResult {
        await podsd.run(Fixtures.executable("pods"), ["subscribe", server.url("/private/feed.xml"), "--user", "alice", "--password-stdin"],
                        timeout: .seconds(60), input: "s3cret-pw\n")
    }

    @Test(arguments: [SecretServiceServer.Collection.missing, .locked])
    func aPromptAnsweredKeepsThePassword(_ collection: SecretServiceServer.Collection) async throws {
        let server = try PrivateFeedTests.server()
        defer { server.stop() }
        let bus = try await PrivateBus.start()
        let secrets = try await SecretServiceServer.start(on: bus, collection: collection)
        let directory = try Fixtures.temporaryDirectory()
        let podsd = try await PodsdProcess.start(bus: bus, directory: directory)
        let result = await subscribe(podsd, server)
        #expect(result.status == 0, "\(result)")
        #expect(secrets.promptsShown == 1)
        #expect(secrets.stored.map { String(decoding: $0.secret, as: UTF8.self) } == ["s3cret-pw"])
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("data/credentials.json").path))
    }

    /// Pods' passwords in a locked keyring at start: podsd answers at once,
    /// asks the keyring to unlock (its prompt), and uses them once it is:
    /// a feed on that host then subscribes without being given them.
    @Test func aLockedKeyringAtStartIsUnlockedWithoutHoldingTheStart() async throws {
        let server = try PrivateFeedTests.server()
        defer { server.stop() }
        let bus = try await PrivateBus.start()
        let kept = SecretServiceServer.item(1, origin: HTTPOrigin.of(server), user: "alice", password: "s3cret-pw")
        // The listener answers the keyring's prompt only when the test says (at most five minutes on).
        let secrets = try await SecretServiceServer.start(on: bus, collection: .locked, promptDelay: .seconds(300), items: [kept])
        let podsd = try await PodsdProcess.start(bus: bus)
        // podsd answers while the prompt is still unanswered.
        #expect(await podsd.playerctl("status").status == 0)
        #expect(secrets.isLocked, "the start waited for the prompt")
        try await waitFor(timeout: .seconds(20)) { secrets.promptsShown == 1 }
        secrets.answerPromptsNow()
        try await waitFor(timeout: .seconds(20)) { !secrets.isLocked }
        #expect(secrets.promptsShown == 1)
        try await Task.sleep(for: .milliseconds(300))  // podsd reads the unlocked items
        let result = await podsd.run(Fixtures.executable("pods"), ["subscribe", server.url("/private/feed.xml")])
        #expect(result.status == 0, "\(result)")
    }

    /// A keyring that takes seconds to open a session does not hold podsd's
    /// names (ADVERSARIAL-5, 3: 26 s, past D-Bus activation's 25 s, and every
    /// `pods` command said podsd was not running): podsd answers within a
    /// couple of seconds, and the keyring's passwords are used once it answers.
    @Test func aKeyringThatAnswersLateHoldsNothingUpAndIsUsedWhenItAnswers() async throws {
        let server = try PrivateFeedTests.server()
        defer { server.stop() }
        let bus = try await PrivateBus.start()
        let kept = SecretServiceServer.item(1, origin: HTTPOrigin.of(server), user: "alice", password: "s3cret-pw")
        _ = try await SecretServiceServer.start(on: bus, openDelay: .seconds(23), items: [kept])
        let started = ContinuousClock.now
        let podsd = try await PodsdProcess.start(bus: bus)
        // Before the keyring answers (a start beside the parallel suites has taken 15 s of its own; the delay stays under D-Bus's 25 s call timeout).
        #expect(ContinuousClock.now - started < .seconds(20), "podsd took its names after \(ContinuousClock.now - started)")
        #expect(await podsd.playerctl("status").status == 0)
        try await waitFor(timeout: .seconds(50)) {
            await podsd.run(Fixtures.executable("pods"), ["subscribe", server.url("/private/feed.xml")]).status == 0
        }
        #expect(ContinuousClock.now - started >= .seconds(22), "subscribed before the keyring answered")
    }
}

/// The origin a server's private feed is kept under.
enum HTTPOrigin {
    static func of(_ server: LoopbackHTTPServer) -> String {
        let url = URLComponents(string: server.url("/"))
        return "\(url?.scheme ?? "http")://\(url?.host ?? "127.0.0.1"):\(url?.port ?? 80)"
    }
}
