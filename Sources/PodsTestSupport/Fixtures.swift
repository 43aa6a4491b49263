import Foundation

/// Paths to the repository's files and the built executables.
public enum Fixtures {
    /// The package root (this file is Sources/PodsTestSupport/Fixtures.swift).
    public static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    public static func data(_ name: String) -> URL {
        packageRoot.appendingPathComponent("data").appendingPathComponent(name)
    }

    /// The 90-second MP3 sample.
    public static var sampleMP3: URL { data("sample-episode-1.mp3") }
    /// The 75-second Ogg Vorbis sample.
    public static var sampleOgg: URL { data("sample-episode-2.ogg") }

    /// `../shared/testdata` beside the repository (real feeds and the peer suite).
    public static var sharedTestData: URL {
        packageRoot.deletingLastPathComponent().appendingPathComponent("shared/testdata")
    }

    /// A built executable of this package (`podsd`, `pods`): beside the
    /// running test bundle, else in `.build/debug`.
    public static func executable(_ name: String) -> String {
        // PODS_BIN_DIR: the binaries under test elsewhere (a release build, an installed package).
        let candidates = [
            ProcessInfo.processInfo.environment["PODS_BIN_DIR"].map { URL(fileURLWithPath: $0) },
            Bundle.main.executableURL?.deletingLastPathComponent(),
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
            packageRoot.appendingPathComponent(".build/debug"),
        ].compactMap { $0 }
        for directory in candidates {
            let path = directory.appendingPathComponent(name).path
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return packageRoot.appendingPathComponent(".build/debug").appendingPathComponent(name).path
    }

    /// A crash's backtrace for a podsd under test, as the systemd unit has
    /// it for the installed one (`SWIFT_BACKTRACE`, data/pods.service.in):
    /// podsd carries the Swift runtime but not the helper that writes the
    /// backtrace, so it is named, the toolchain's one made to run without
    /// a Swift installation (what ./scripts/install installs). Looked up
    /// once, not at every podsd start.
    public static let backtraceEnvironment: [String: String] = {
        guard let swift = ProcessInfo.processInfo.environment["PATH"]?.split(separator: ":")
                  .map({ URL(fileURLWithPath: String($0)).appendingPathComponent("swift") })
                  .first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else { return [:] }
        let helper = swift.resolvingSymlinksInPath().deletingLastPathComponent()
            .appendingPathComponent("../libexec/swift/linux/swift-backtrace-static").standardizedFileURL
        guard FileManager.default.isExecutableFile(atPath: helper.path) else { return [:] }
        return ["SWIFT_BACKTRACE": "swift-backtrace=\(helper.path)"]
    }()

    /// A fresh temporary directory.
    public static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("pods-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
