// libFuzzer harness: a config.toml as the listener (or anything that can
// write the file) leaves it; podsd reads it at start and on every change,
// and runs the title patterns it sets (skip-chapters, ignore-episodes)
// over any feed's titles.
// Built by scripts/fuzz with the PodsSettings sources and TOMLKit (its
// toml++ parser instrumented too).
import Foundation

public func fuzzConfig(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    // The first line as a pattern in itself (what `pods config` and CreatePlaylist are given), matched
    // without backtracking over the rest (LinearPattern): it compiles or is refused, and never traps.
    let lines = text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false)
    if let first = lines.first, let pattern = try? TitlePattern(String(first)) {
        _ = pattern.matches(lines.count > 1 ? String(lines[1]) : "")
    }
    // A pattern the file sets is compiled, then run over a title (the file's own last line stands in for a feed's).
    if let settings = try? ConfigFile.parse(text) {
        for key in [SettingKey.skipChapters, .ignoreEpisodes] {
            if let pattern = TitlePattern.optional(settings.values[key]?.textValue) {
                _ = pattern.matcher()(String(text.split(separator: "\n").last ?? ""))
            }
        }
    }
    return 0
}
