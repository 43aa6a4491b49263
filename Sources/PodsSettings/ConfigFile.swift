import Foundation
import TOMLKit

/// The global settings a person set, as read from `config.toml`.
public struct Settings: Sendable, Equatable {
    /// Only the keys the file sets; the rest take their defaults.
    public var values: [SettingKey: SettingValue]

    public init(values: [SettingKey: SettingValue] = [:]) { self.values = values }

    /// The key's value: the file's, else its default.
    public subscript(key: SettingKey) -> SettingValue { values[key] ?? key.defaultValue }
}

/// `$XDG_CONFIG_HOME/pods/config.toml`: read with TOMLKit, written with a
/// comment for every key on first use, edited by `pods config` one line at
/// a time so a person's own comments and layout stay.
///
/// Edits change the key's own line (or add one); TOMLKit's serializer
/// would write the table anew without the comments, so the edit is made on
/// the text and the result checked by parsing it before it replaces the
/// file (atomically).
public struct ConfigFile: Sendable {
    public let url: URL

    public init(url: URL) { self.url = url }

    // MARK: - Reading

    /// The settings the file holds; a missing file is written with every
    /// key commented out. A broken file is one error naming the line and key.
    public func load() throws(SettingsError) -> Settings {
        guard let data = FileManager.default.contents(atPath: url.path) else {
            try writeTemplate()
            return Settings()
        }
        return try Self.parse(String(decoding: data, as: UTF8.self), name: url.path)
    }

    /// Reads a config text; `name` is the file's, for messages.
    public static func parse(_ text: String, name: String = "config.toml") throws(SettingsError) -> Settings {
        if let line = headerWithoutKey(in: text) {
            throw SettingsError("\(name) line \(line): a table header must start with a key, as in [podcast]")
        }
        let table: TOMLTable
        do {
            table = try TOMLTable(string: text)
        } catch let error as TOMLParseError {
            throw SettingsError("\(name) line \(error.source.begin.line): \(error.description)")
        } catch {
            throw SettingsError("\(name): \(error)")
        }
        var settings = Settings()
        for keyName in table.keys {
            let place = name + (lineNumber(of: keyName, in: text).map { " line \($0)" } ?? "")
            do {
                let key = try SettingKey.named(keyName)
                guard let value = table[keyName] else { continue }
                settings.values[key] = try key.checked(tomlValue(value, for: key))
            } catch {
                throw SettingsError("\(place): \(error.message)")
            }
        }
        return settings
    }

    /// A TOML value as a setting value of `key`'s kind (a TOML integer is a number too).
    private static func tomlValue(_ value: any TOMLValueConvertible, for key: SettingKey) throws(SettingsError) -> SettingValue {
        if let flag = value.bool { return .bool(flag) }
        if let number = value.double { return .number(number) }
        if let number = value.int { return .number(Double(number)) }
        if let text = value.string {
            if case .choice = key.kind { return .text(text) }
            return try key.parse(text)  // "5%", "1h"
        }
        throw SettingsError("\(key.name) takes \(key.expected), not a TOML \(value.type)")
    }

    /// The 1-based line where `key` is assigned.
    static func lineNumber(of key: String, in text: String) -> Int? {
        text.split(separator: "\n", omittingEmptySubsequences: false).firstIndex { assigns(key, $0) }.map { $0 + 1 }
    }

    /// Whether `line` is `key = …` (not commented out).
    /// The 1-based line of a table header whose key does not start with a
    /// key character or a quote (`[#`, `[[[`, `[=`, a lone `[`), if any.
    ///
    /// toml++ 3.4, inside the TOMLKit release Pods builds with, does not fail
    /// on such a header: its parser asserts and aborts the process (its
    /// `parse_table_header` calls `parse_key` without checking the first
    /// character; fixed upstream in toml++ pull request 301, May 2026), and a
    /// podsd that aborts on its config file would abort again at every start.
    /// So they are refused here first, found by fuzzing (`Tests/Fuzz/config.swift`).
    /// Any line starting with `[` counts, also inside a multi-line value: a
    /// valid file Pods reads has none there.
    public static func headerWithoutKey(in text: String) -> Int? {
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            var rest = line.drop { $0.isWhitespace || $0 == "\u{FEFF}" }
            guard rest.first == "[" else { continue }
            rest = rest.dropFirst()
            if rest.first == "[" { rest = rest.dropFirst() }
            rest = rest.drop { $0 == " " || $0 == "\t" }
            guard let first = rest.unicodeScalars.first,
                  first.isASCII && (first.properties.isAlphabetic || ("0"..."9").contains(first) || "_-\"']".unicodeScalars.contains(first))
            else { return index + 1 }
        }
        return nil
    }

    static func assigns(_ key: String, _ line: Substring) -> Bool {
        let trimmed = line.drop { $0 == " " || $0 == "\t" }
        guard trimmed.hasPrefix(key) else { return false }
        return trimmed.dropFirst(key.count).drop { $0 == " " || $0 == "\t" }.first == "="
    }

    // MARK: - Writing

    /// Sets `key` to `value` (nil: removes it, so the default applies).
    public func set(_ key: SettingKey, _ value: SettingValue?) throws(SettingsError) {
        if FileManager.default.contents(atPath: url.path) == nil { try writeTemplate() }
        let text = String(decoding: FileManager.default.contents(atPath: url.path) ?? Data(), as: UTF8.self)
        let edited = Self.edit(text, key: key, value: value)
        _ = try Self.parse(edited, name: url.path)  // never write what does not read back
        try write(edited)
    }

    /// `text` with `key`'s line replaced, added after its commented
    /// template line, or appended; or removed when `value` is nil.
    static func edit(_ text: String, key: SettingKey, value: SettingValue?) -> String {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let assignment = value.map { "\(key.name) = \($0.toml)" }
        if let index = lines.firstIndex(where: { assigns(key.name, Substring($0)) }) {
            if let assignment { lines[index] = assignment } else { lines.remove(at: index) }
        } else if let assignment {
            if let template = lines.firstIndex(where: { assigns("# " + key.name, Substring($0)) || $0.hasPrefix("# \(key.name) =") }) {
                lines.insert(assignment, at: template + 1)
            } else {
                // Before any [table], where top-level keys must be.
                let firstTable = lines.firstIndex { $0.trimmingCharacters(in: .whitespaces).hasPrefix("[") } ?? lines.count
                lines.insert(assignment, at: firstTable)
            }
        }
        return lines.joined(separator: "\n")
    }

    /// The file a first start writes: every key with its help and default, commented out.
    public static var template: String {
        var text = """
            # Pods settings. podsd reads this file when it starts and whenever it is saved;
            # `pods config KEY VALUE` edits it.
            # A podcast's own values live in the library: `pods config --podcast NAME KEY VALUE`.
            # Each key below shows its default; remove the '#' to change it.

            """
        for key in SettingKey.all {
            text += "\n# \(key.help)\n# \(key.name) = \(key.defaultValue.toml)\n"
        }
        return text
    }

    private func writeTemplate() throws(SettingsError) { try write(Self.template) }

    /// 0600: the file may hold the Podcast Index secret.
    private func write(_ text: String) throws(SettingsError) {
        try PrivateFile.write(Data(text.utf8), to: url)
    }
}
