import ArgumentParser
import Foundation
import PodsClient
import PodsDBus
import PodsProtocol
import PodsSettings

struct Stats: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Hours heard, by podcast and by week, and the time speed and trimmed silence saved.",
        discussion: "Every stretch of listening is kept (`--export` prints them all). See docs/stats.md.")

    @Option(help: ArgumentHelp("Only listening from then on: a date (2026-11-01) or a time ago (30d, 4w, 12h).",
                               valueName: "when")) var since: String?
    @Option(help: ArgumentHelp("Print every play session instead, as csv or json.", valueName: "csv|json")) var export: String?
    @OptionGroup var format: OutputFormat

    func validate() throws {
        if let export, export != "csv", export != "json" { throw ValidationError("--export takes csv or json") }
        if let since, Self.start(since) == nil {
            throw ValidationError("--since takes a date (2026-11-01) or a time ago (30d, 4w, 12h), not '\(since.prefix(40))'")
        }
    }

    func run() async throws {
        let start = since.flatMap(Self.start) ?? 0
        try await withLibrary { (library) throws(PlayerClient.Failure) in
            switch export {
            case "json":
                var output = ItemOutput.array()
                try await library.playSessions(since: start) { output.page($0, LibraryItems.playSession) }
                output.finish()
            case "csv":
                print("startedAt,podcastId,podcast,episodeId,episode,from,to,rate,seconds")
                try await library.playSessions(since: start) { page in
                    for session in page { print(Self.csvLine(session)) }
                }
            default:
                let stats = try await library.listeningStats(since: start)
                if format.json { return ItemOutput.print(stats, LibraryItems.listeningStats) }
                print(Self.report(stats, since: since))
            }
        }
    }

    /// Unix seconds of `text`: a local date (`2026-11-01`, its midnight), or a time ago (`30d`); nil for anything else.
    static func start(_ text: String) -> Int64? {
        if let ago = SettingKey.seconds(fromUnits: text), ago >= 0, ago < 1e10 {
            return Int64(Date().timeIntervalSince1970 - ago)
        }
        let parts = text.split(separator: "-", omittingEmptySubsequences: false).map { Int($0) }
        guard parts.count == 3, let year = parts[0], let month = parts[1], let day = parts[2],
              (1970...9999).contains(year), (1...12).contains(month), (1...31).contains(day) else { return nil }
        let components = DateComponents(calendar: Calendar.current, year: year, month: month, day: day)
        guard components.isValidDate, let date = components.date else { return nil }
        return Int64(date.timeIntervalSince1970)
    }

    static func report(_ stats: DBusValue, since: String?) -> String {
        let sessions = stats["sessions"].int
        guard sessions > 0 else { return since == nil ? "Nothing heard yet." : "Nothing heard since \(since ?? "")." }
        var lines = [
            since.map { "Since \($0):" } ?? "All listening:",
            "  heard  \(hours(stats["seconds"]?.doubleValue)) in \(sessions) session\(sessions == 1 ? "" : "s")",
            "  saved  \(hours(stats["savedBySpeed"]?.doubleValue)) by speed, \(hours(stats["savedByTrimming"]?.doubleValue)) by trimming silence",
            "", "By podcast (heard, saved):",
        ]
        for share in stats["podcasts"]?.arrayValue ?? [] {
            lines.append("  \(hours(share["seconds"]?.doubleValue))  \(hours(share["saved"]?.doubleValue))  \(share["name"].text)")
        }
        lines += ["", "By week (from Monday):"]
        for share in stats["weeks"]?.arrayValue ?? [] {
            lines.append("  \(share["name"].text)  \(hours(share["seconds"]?.doubleValue))")
        }
        return lines.joined(separator: "\n")
    }

    static func hours(_ seconds: Double?) -> String { ListeningTime.text(seconds) }

    static func csvLine(_ session: DBusValue) -> String {
        let started = Date(timeIntervalSince1970: Double(session["startedAt"]?.int64Value ?? 0))
        let number = { (key: String) in String(format: "%.1f", session[key]?.doubleValue ?? 0) }
        return [
            started.ISO8601Format(), String(session["podcastId"].int), csvField(session["podcastTitle"].text),
            String(session["episodeId"].int), csvField(session["episodeTitle"].text), number("from"), number("to"),
            String(format: "%.2f", session["rate"]?.doubleValue ?? 1), number("seconds"),
        ].joined(separator: ",")
    }

    /// A field as RFC 4180 writes it; control characters (a feed's title is anyone's) become spaces, and
    /// a field a spreadsheet would read as a formula (`=`, `+`, `-`, `@` first: quotes do not stop it) starts
    /// with `'` (REVIEW-4, N18).
    static func csvField(_ text: String) -> String {
        var clean = String(String.UnicodeScalarView(text.unicodeScalars.map { $0.properties.generalCategory == .control ? " " : $0 }))
        if let first = clean.first, "=+-@".contains(first) { clean = "'" + clean }
        return "\"" + clean.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
