import Foundation
import PodsSettings
import PodsTestSupport
import Testing

/// `docs/cli.md`'s table of `config.toml` keys is the one a listener
/// reads: it names every key `SettingKey.all` has, and no other (it once
/// lacked `ui-artwork`, and nothing noticed).
@Suite struct SettingsDocumentationTests {
    @Test func theConfigTableNamesEveryKey() throws {
        let text = try String(contentsOf: Fixtures.packageRoot.appendingPathComponent("docs/cli.md"), encoding: .utf8)
        let section = try #require(text.components(separatedBy: "| key | default | what it does |").dropFirst().first)
        var documented = Set<String>()
        for line in section.split(separator: "\n") {
            guard line.hasPrefix("| `") else {
                if documented.isEmpty { continue } else { break }
            }
            let keys = line.dropFirst(2).prefix { $0 != "|" }
            for key in keys.split(separator: ",") {
                documented.insert(key.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "`")))
            }
        }
        let keys = Set(SettingKey.all.map(\.name))
        #expect(documented == keys, "missing: \(keys.subtracting(documented).sorted()), unknown: \(documented.subtracting(keys).sorted())")
    }
}
