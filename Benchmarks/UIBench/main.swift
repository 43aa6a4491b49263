import Foundation
import PodsLibrary
import PodsTestSupport

/// `pods-ui-bench`: `pods ui` on a library of gPodder's size (53,000
/// episodes in 200 podcasts), in a real terminal (tmux), against `pods
/// episodes` on the same library in the same run. Figures: first paint
/// (from starting `pods ui` to the screen showing the first podcast's
/// episodes), the newest-first list of every episode, a page down
/// (key → new screen), and `G` (every page read) beside `pods episodes`.
@main
struct UIBench {
    static func main() async throws {
        let runs = Int(CommandLine.arguments.dropFirst().first ?? "") ?? 5
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let made = ContinuousClock.now
        _ = try await onOwnThread {
            try GeneratedLibrary.populate(try Library(directory: directory.appendingPathComponent("data")), podcasts: 200,
                                          episodesEach: 265, descriptionBytes: 2000)
        }
        print("library: 200 podcasts, 53,000 episodes, made in \(ms(ContinuousClock.now - made))")
        let podsd = try await PodsdProcess.start(directory: directory)
        let environment = podsd.bus.environment.merging(["TERM": "xterm-256color"]) { $1 }

        // A file to print into (never /dev/null: Subprocess makes the output file anew, atomically).
        let sink = directory.appendingPathComponent("output")
        var listing: [Duration] = [], firstPage: [Duration] = []
        for _ in 0..<runs {
            var started = ContinuousClock.now
            let all = await Subprocess.run(Fixtures.executable("pods"), ["episodes", "--json"], environment: environment,
                                           timeout: .seconds(120), outputFile: sink)
            listing.append(ContinuousClock.now - started)
            guard all.status == 0 else { throw TestSupportError("pods episodes failed: \(all.stderr)") }
            started = ContinuousClock.now
            _ = await Subprocess.run(Fixtures.executable("pods"), ["episodes", "--limit", "200"], environment: environment,
                                     outputFile: sink)
            firstPage.append(ContinuousClock.now - started)
        }

        var paint: [Duration] = [], newest: [Duration] = [], pageDown: [Duration] = [], toEnd: [Duration] = []
        for _ in 0..<runs {
            let started = ContinuousClock.now
            let terminal = try await TmuxSession([Fixtures.executable("pods"), "ui"], environment: environment, columns: 120, rows: 40)
            try await terminal.waitForScreen(timeout: .seconds(30), "the first podcast's episodes", every: .milliseconds(3)) {
                $0.contains("Podcasts (200)") && $0.contains("· Episode 265 of show 199")
            }
            paint.append(ContinuousClock.now - started)
            var sent = ContinuousClock.now
            await terminal.send("4")
            try await terminal.waitForScreen(timeout: .seconds(30), "the newest list", every: .milliseconds(3)) {
                $0.contains("Every episode, newest first (") && $0.contains("+)")
            }
            newest.append(ContinuousClock.now - sent)
            for _ in 0..<30 {
                let before = await terminal.screen()
                sent = ContinuousClock.now
                await terminal.send("PageDown")
                try await terminal.waitForScreen(timeout: .seconds(10), "a page down", every: .milliseconds(3)) { $0 != before }
                pageDown.append(ContinuousClock.now - sent)
            }
            sent = ContinuousClock.now
            await terminal.send("G")
            try await terminal.waitForScreen(timeout: .seconds(120), "the end of the list", every: .milliseconds(5)) {
                $0.contains("Every episode, newest first (53000)")
            }
            toEnd.append(ContinuousClock.now - sent)
            await terminal.stop()
        }
        print("")
        print("| step (\(runs) runs, median; p99 for page down) | pods ui | peer: pods episodes | goal |")
        print("|---|---|---|---|")
        print("| first paint (start → the podcasts and the first one's episodes on screen) | \(ms(median(paint))) | \(ms(median(firstPage))) (`--limit 200`, printed) | < 150 ms |")
        print("| every episode, newest first (key 4 → first page on screen) | \(ms(median(newest))) | | |")
        print("| page down (key → new screen) | p50 \(ms(median(pageDown))), p99 \(ms(percentile(pageDown, 0.99))) | | no wait on the bus |")
        print("| `G`: all 53,000 read, last row selected | \(ms(median(toEnd))) | \(ms(median(listing))) (`--json`, whole list) | |")
        _ = await podsd.signal(SIGTERM)
    }

    static func median(_ values: [Duration]) -> Duration { percentile(values, 0.5) }

    static func percentile(_ values: [Duration], _ share: Double) -> Duration {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return .zero }
        return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * share).rounded()))]
    }

    static func ms(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        return String(format: "%.0f ms", Double(seconds) * 1000 + Double(attoseconds) / 1e15)
    }
}
