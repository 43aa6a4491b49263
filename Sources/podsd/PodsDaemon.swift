import ArgumentParser
import Foundation
import Logging
import PodsPlayback
import PodsProtocol
import PodsService
import PodsSettings

@main
struct PodsDaemon: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "podsd",
        abstract: "The Pods podcast player service: MPRIS 2.2 on the D-Bus session bus.",
        discussion: """
            Owns org.mpris.MediaPlayer2.pods, so media keys, playerctl and desktop media controls drive it, \
            and org.pods.Pods, where the pods command reaches the library and settings.
            """,
        version: PodsVersion.current)

    /// Parses the command line as the kernel holds it when the Swift
    /// runtime was given none: under an `LD_PRELOAD` such as libfaketime's
    /// (which the sync tests run one podsd under), `CommandLine.arguments`
    /// comes back empty, and podsd would start with none of its options.
    static func main() async {
        var arguments = CommandLine.arguments
        if arguments.isEmpty, let line = FileManager.default.contents(atPath: "/proc/self/cmdline") {
            arguments = line.split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
            if arguments.last == "" { arguments.removeLast() }
        }
        // A picture for pods ui, decoded in a process of its own (ImageRenderer).
        if arguments.dropFirst().first == ImageRenderer.helperArgument {
            Foundation.exit(ImageRenderer.runAsHelper(Array(arguments.dropFirst(2))))
        }
        // A download's loudness, measured in a process of its own (LoudnessAnalyzer).
        if arguments.dropFirst().first == LoudnessAnalyzer.helperArgument {
            Foundation.exit(LoudnessAnalyzer.runAsHelper(Array(arguments.dropFirst(2))))
        }
        await main(Array(arguments.dropFirst()))
    }

    @Option(help: ArgumentHelp("Where the library lives.", valueName: "dir"))
    var dataDir: String?

    @Option(help: ArgumentHelp("Where caches live.", valueName: "dir"))
    var cacheDir: String?

    @Option(help: ArgumentHelp("The settings file (default: $XDG_CONFIG_HOME/pods/config.toml).", valueName: "file"))
    var config: String?

    @Option(help: ArgumentHelp(
        "GStreamer audio sink, e.g. \"fakesink sync=true\" (default: $PODS_AUDIO_SINK, else autoaudiosink).",
        valueName: "description"))
    var audioSink: String?

    @Flag(help: "Take org.mpris.MediaPlayer2.pods and org.pods.Pods from a running podsd.")
    var replace = false

    @Flag(help: "At the end of an episode, stop instead of playing the next one (overrides auto-next in the config file).")
    var noAutoNext = false

    @Option(help: ArgumentHelp(
        "Mark an episode played once this little of it is left: seconds, or a share such as 5% (overrides the config file).",
        valueName: "seconds"))
    var completeWithin: String?

    @Option(help: ArgumentHelp("Refresh every feed this often by itself: 1h, 30m, 90s; 0 never (overrides refresh-interval in the config file).",
                               valueName: "time"))
    var refreshInterval: String?

    @Flag(help: "Stream episodes plainly, without the range cache (no downloads, no cached artwork).")
    var noCache = false

    @Flag(help: "Log debug messages.")
    var verbose = false

    func run() async throws {
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = verbose ? .debug : .info
            return handler
        }
        let logger = Logger(label: "podsd")
        let environment = ProcessInfo.processInfo.environment
        let directories = PodsDirectories(dataDir: dataDir, cacheDir: cacheDir, environment: environment)
        do {
            try directories.create()
        } catch {
            Self.fail(error)
        }
        let sink = audioSink ?? environment["PODS_AUDIO_SINK"].flatMap { $0.isEmpty ? nil : $0 }
        var configuration = PodsService.Configuration(audioSink: sink, replace: replace, dataDirectory: directories.data)
        configuration.cacheDirectory = noCache ? nil : directories.cache
        configuration.configFile = config.map { URL(fileURLWithPath: $0) } ?? directories.config
        if noAutoNext { configuration.settingOverrides[.autoNext] = .bool(false) }
        if let refreshInterval {
            do { configuration.settingOverrides[.refreshInterval] = try SettingKey.refreshInterval.parse(refreshInterval) } catch {
                Self.fail(ValidationError("--refresh-interval: \(error.message)"))
            }
        }
        if let completeWithin {
            do { configuration.settingOverrides[.completeWithin] = try SettingKey.completeWithin.parse(completeWithin) } catch {
                Self.fail(ValidationError("--complete-within: \(error.message)"))
            }
        }
        configuration.stopSignals = [SIGTERM, SIGINT]
        do {
            try await PodsService(configuration: configuration, logger: logger).run()
        } catch {
            Self.fail(error)
        }
    }

    /// One clear line on stderr, exit status 1.
    private static func fail(_ error: any Error) -> Never {
        FileHandle.standardError.write(Data("podsd: \(error)\n".utf8))
        Foundation.exit(1)
    }
}
