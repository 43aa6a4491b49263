import Foundation
import PodsClient
import PodsDBus
import PodsTestSupport

/// pods-scale-bench: gPodder's whole workload of a real listener (200
/// feeds, ~53,000 episodes, ~187 MB of RSS, one loopback nginx with ETags
/// and `charset=utf-8`) through a real podsd driven by `pods`, beside, in
/// the same run, `curl --parallel --parallel-max 8` over the same URLs and
/// gPodder's `gpo` when the Debian package `gpodder` is installed.
/// Compare ratios, not absolute times.
///
/// `--no-gpo` leaves gpo out; `--keep` keeps the folder with the feeds,
/// Pods' library and gPodder's; `--rounds N` sets how many full refreshes
/// and listings MPRIS is measured during (20 each); `--listing FOLDER` runs only the listing
/// step, on the library of a folder kept before.
@main
struct ScaleBench {
    static func main() async throws {
        let arguments = CommandLine.arguments
        let skipGPO = arguments.contains("--no-gpo")
        let keep = arguments.contains("--keep")
        let rounds = max(1, arguments.firstIndex(of: "--rounds").flatMap { $0 + 1 < arguments.count ? Int(arguments[$0 + 1]) : nil } ?? 20)
        if let flag = arguments.firstIndex(of: "--listing"), flag + 1 < arguments.count {
            var table = ResultTable()
            let bus = try await PrivateBus.start()
            try await PodsRun.listing(bus: bus, directory: URL(fileURLWithPath: arguments[flag + 1]).appendingPathComponent("pods"),
                                      rounds: rounds, into: &table)
            table.print()
            return
        }
        let work = try Fixtures.temporaryDirectory()
        defer { if keep { print("kept \(work.path)") } else { try? FileManager.default.removeItem(at: work) } }
        var workload = ScaleWorkload()
        let root = work.appendingPathComponent("www")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("feeds"), withIntermediateDirectories: true)
        var feedBytes = 0
        for feed in workload.feeds {
            let data = workload.xml(feed)
            feedBytes += data.count
            try data.write(to: root.appendingPathComponent(String(feed.path.dropFirst())))
        }
        let server = try Nginx(root: root, directory: work.appendingPathComponent("nginx"))
        defer { server.stop() }
        let opml = work.appendingPathComponent("subs.opml")
        try workload.opml(baseURL: server.baseURL).write(to: opml, atomically: true, encoding: .utf8)
        let urls = workload.feeds.map { server.baseURL + $0.path }
        print("workload: \(workload.feeds.count) feeds, \(workload.episodeCount) episodes, "
              + String(format: "%.0f MB", Double(feedBytes) / 1e6) + " of RSS, served by nginx \(server.baseURL)")

        // curl, the network's floor: 200 full GETs, 8 at once.
        let curl = try await Peers.curl(urls)
        print(String(format: "curl --parallel --parallel-max 8: 200 full GETs in %.2f s", curl))

        var table = ResultTable()
        let pods = PodsRun(root: root, opml: opml, work: work, urls: urls, rounds: rounds)
        try await pods.run(&workload, into: &table)
        if !skipGPO, let gpo = Peers.gpo() {
            var peerWorkload = ScaleWorkload()
            try await gpo.run(&peerWorkload, root: root, opml: opml, work: work, into: &table)
        } else {
            print("gpo (Debian package gpodder) not installed or --no-gpo: Pods and curl figures only")
        }
        table.print(curl: curl, feedBytes: feedBytes)
    }
}

/// Each step's figures per program.
struct ResultTable {
    struct Row {
        var step: String
        var pods: Double?
        var gpo: Double?
        var goal: String
    }

    private(set) var rows: [Row] = []
    var notes: [String] = []

    mutating func set(_ step: String, pods: Double? = nil, gpo: Double? = nil, goal: String = "") {
        if let index = rows.firstIndex(where: { $0.step == step }) {
            if let pods { rows[index].pods = pods }
            if let gpo { rows[index].gpo = gpo }
            if !goal.isEmpty { rows[index].goal = goal }
        } else {
            rows.append(Row(step: step, pods: pods, gpo: gpo, goal: goal))
        }
    }

    func print(curl: Double? = nil, feedBytes: Int = 0) {
        Swift.print("")
        Swift.print("| step | Pods | gpo | gpo ÷ Pods | goal |")
        Swift.print("|---|---|---|---|---|")
        for row in rows {
            let ratio = row.pods.flatMap { pods in row.gpo.map { String(format: "%.1f×", $0 / max(pods, 1e-9)) } } ?? "–"
            Swift.print("| \(row.step) | \(Self.cell(row.pods)) | \(Self.cell(row.gpo)) | \(ratio) | \(row.goal) |")
        }
        if let curl {
            Swift.print(String(format: "\ncurl --parallel-max 8, 200 full GETs: %.2f s; the feeds: %.1f MB", curl, Double(feedBytes) / 1e6))
        }
        for note in notes { Swift.print(note) }
    }

    private static func cell(_ value: Double?) -> String {
        guard let value else { return "–" }
        return value >= 100 ? String(format: "%.0f", value) : String(format: "%.2f", value)
    }
}
