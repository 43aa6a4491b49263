import Foundation
import PodsClient
import PodsTestSupport
import Testing

/// Each format's header with a sample rate or channel count of 0 (or the
/// reserved rate) reaches the real podsd — levelling on, at 1.5× — and it
/// plays, refuses or passes over each with one error, and lives. The class
/// behind the hostile world's SIGFPE (ADVERSARIAL-5 world run, seed 41):
/// C code fed a shape of 0. Reproduced here: an "mp3" whose frames name the
/// reserved rate typefinds as MPEG-4 video, playbin tried the machine's
/// video sinks though podsd asks for audio only, and DirectFB's killed podsd
/// with SIGSEGV.
@Suite(.serialized, .timeLimit(.minutes(4))) struct ZeroShapeMediaTests {
    @Test func noHeaderShapeKillsPodsd() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let files = try await ZeroShapeMedia.make(in: directory)
        #expect(files.count == 15)
        try #"loudness = "on""#.write(to: directory.appendingPathComponent("config.toml"), atomically: true, encoding: .utf8)
        let podsd = try await PodsdProcess.start(directory: directory)
        try await podsd.client.setRate(1.5)
        for (name, url) in files.sorted(by: { $0.key < $1.key }) {
            _ = await podsd.pods("play", url.path)
            try await Task.sleep(for: .milliseconds(800))
            _ = await podsd.pods("seek", "+1")
            _ = await podsd.pods("status")
            #expect(podsd.isRunning, "podsd died playing \(name): \(podsd.errorOutput().suffix(3_000))")
            guard podsd.isRunning else { return }
        }
        #expect(await podsd.signal(SIGTERM)?.status == 0)
    }
}
