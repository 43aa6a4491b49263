import Foundation
import PodsSettings

/// The data and cache directories, by option or XDG default.
struct PodsDirectories: CustomStringConvertible {
    let data: URL
    let cache: URL
    /// `config.toml`.
    let config: URL

    init(dataDir: String?, cacheDir: String?, environment: [String: String]) {
        let home = environment["HOME"].map { URL(fileURLWithPath: $0) }
            ?? FileManager.default.homeDirectoryForCurrentUser
        func xdg(_ variable: String, _ fallback: String) -> URL {
            if let value = environment[variable], value.hasPrefix("/") { return URL(fileURLWithPath: value) }
            return home.appendingPathComponent(fallback)
        }
        data = dataDir.map { URL(fileURLWithPath: $0) } ?? xdg("XDG_DATA_HOME", ".local/share").appendingPathComponent("pods")
        cache = cacheDir.map { URL(fileURLWithPath: $0) } ?? xdg("XDG_CACHE_HOME", ".cache").appendingPathComponent("pods")
        config = ConfigFile.defaultURL(environment: environment)
    }

    func create() throws {
        for directory in [data, cache] {
            do {
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            } catch {
                throw DirectoryError(path: directory.path, reason: error.localizedDescription)
            }
        }
    }

    var description: String { "data \(data.path), cache \(cache.path)" }

    struct DirectoryError: Error, CustomStringConvertible {
        let path: String
        let reason: String
        var description: String { "cannot create \(path): \(reason)" }
    }
}
