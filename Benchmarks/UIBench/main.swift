import Foundation
import PodsLibrary
import PodsTestSupport

/// `pods-ui-bench`: `pods ui` on a library of gPodder's size (53,000
/// episodes in 200 podcasts), in a real terminal (tmux), against `pods
/// episodes` on the same library in the same run. Figures: first paint
/// (from starting `pods ui` to the screen showing the first podcast's
/// episodes), the newest-first list of every episode, a page down
/// (key → new screen), and `G` (every page read) beside `pods episodes`;
/// and castero (installed with pip into `.build/bench-venv`) on the same
/// shows written into its own database: its first paint, and a page down
/// in the first podcast's episodes (castero has no list of every episode).
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
        _ = await podsd.signal(SIGTERM)
        let castero = try await casteroFigures(runs: runs, in: directory)
        print("")
        print("| step (\(runs) runs, median; p99 for page down) | pods ui | peer: pods episodes | peer: castero 0.9.5 | goal |")
        print("|---|---|---|---|---|")
        print("| first paint (start → the podcasts and the first one's episodes on screen) | \(ms(median(paint))) | \(ms(median(firstPage))) (`--limit 200`, printed) | \(castero.map { ms(median($0.paint)) } ?? "not installed") | < 150 ms |")
        print("| every episode, newest first (key 4 → first page on screen) | \(ms(median(newest))) | | (no such list) | |")
        print("| page down (key → new screen) | p50 \(ms(median(pageDown))), p99 \(ms(percentile(pageDown, 0.99))) | | \(castero.map { "p50 \(ms(median($0.pageDown))), p99 \(ms(percentile($0.pageDown, 0.99))) (one podcast's 265)" } ?? "") | no wait on the bus |")
        print("| `G`: all 53,000 read, last row selected | \(ms(median(toEnd))) | \(ms(median(listing))) (`--json`, whole list) | | |")
    }

    /// castero's first paint and page downs on the same shows; nil when it cannot be installed.
    static func casteroFigures(runs: Int, in directory: URL) async throws -> (paint: [Duration], pageDown: [Duration])? {
        let venv = URL(fileURLWithPath: ".build/bench-venv", isDirectory: true).standardizedFileURL
        let castero = venv.appendingPathComponent("bin/castero").path
        if !FileManager.default.isExecutableFile(atPath: castero) {
            _ = await Subprocess.run("python3", ["-m", "venv", venv.path], timeout: .seconds(120))
            let installed = await Subprocess.run(venv.appendingPathComponent("bin/pip").path, ["install", "-q", "castero==0.9.5"],
                                                 timeout: .seconds(600))
            guard installed.status == 0 else {
                print("castero could not be installed (\(installed.stderr.prefix(200))): no castero figures")
                return nil
            }
        }
        let home = directory.appendingPathComponent("castero")
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("castero_library.py")
        let made = ContinuousClock.now
        let written = await Subprocess.run(venv.appendingPathComponent("bin/python").path, [script.path, home.path, "200", "265", "2000"],
                                           timeout: .seconds(600))
        guard written.status == 0 else { throw TestSupportError("castero's library could not be written: \(written.stderr)") }
        print("castero's library: the same 200 podcasts and 53,000 episodes, written in \(ms(ContinuousClock.now - made))")
        let environment = ["XDG_DATA_HOME": home.appendingPathComponent("data").path,
                           "XDG_CONFIG_HOME": home.appendingPathComponent("config").path, "TERM": "xterm-256color"]
        var paint: [Duration] = [], pageDown: [Duration] = []
        for _ in 0..<runs {
            let started = ContinuousClock.now
            let terminal = try await TmuxSession([castero], environment: environment, columns: 120, rows: 40)
            try await terminal.waitForScreen(timeout: .seconds(60), "castero's first podcast's episodes", every: .milliseconds(3)) {
                $0.contains("Show 0") && $0.contains("Episodes (265/265)")
            }
            paint.append(ContinuousClock.now - started)
            await terminal.send("Right")  // into the episodes
            try await Task.sleep(for: .milliseconds(300))
            for _ in 0..<6 {  // 265 episodes are seven screens
                let before = await terminal.screen()
                let sent = ContinuousClock.now
                await terminal.send("PageDown")
                guard (try? await terminal.waitForScreen(timeout: .seconds(10), "a page down", every: .milliseconds(3), { $0 != before })) != nil
                else { break }  // the end of the list
                pageDown.append(ContinuousClock.now - sent)
            }
            await terminal.stop()
        }
        return (paint, pageDown)
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
