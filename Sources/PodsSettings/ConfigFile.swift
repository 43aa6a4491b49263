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

    /// `$XDG_CONFIG_HOME/pods/config.toml` (`~/.config` when it is unset or
    /// not absolute): where podsd and `pods ui` look unless told.
    public static func defaultURL(environment: [String: String]) -> URL {
        if let base = environment["XDG_CONFIG_HOME"], base.hasPrefix("/") {
            return URL(fileURLWithPath: base).appendingPathComponent("pods/config.toml")
        }
        let home = environment["HOME"].map { URL(fileURLWithPath: $0) } ?? FileManager.default.homeDirectoryForCurrentUser
        return home.appendingPathComponent(".config/pods/config.toml")
    }

    // MARK: - Reading

    /// The settings the file holds; a missing file is written with every
    /// key commented out. A broken file is one error naming the line and key;
    /// one that cannot be read is an error too, and is never written over.
    public func load() throws(SettingsError) -> Settings {
        guard FileManager.default.fileExists(atPath: url.path) else {
            try PrivateFile.update(url) { current in current ?? Data(Self.template.utf8) }
            return Settings()
        }
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw SettingsError("cannot read \(url.path): \(String(cString: strerror(errno)))")
        }
        return try Self.parse(String(decoding: data, as: UTF8.self), name: url.path)
    }

    /// Reads a config text; `name` is the file's, for messages.
    public static func parse(_ text: String, name: String = "config.toml") throws(SettingsError) -> Settings {
        if let (line, why) = unsupportedLine(in: text) { throw SettingsError("\(name) line \(line): \(why)") }
        let table: TOMLTable
        do {
            table = try TOMLTable(string: text)
        } catch let error as TOMLParseError {
            throw SettingsError("\(name) line \(error.source.begin.line): \(error.description)")
        } catch {
            throw SettingsError("\(name): \(error)")
        }
        var settings = Settings()
        for keyName in table.keys where keyName != keysTable || table[keyName]?.table == nil {
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
    /// The first line that is not a comment, a blank or a `key = value`
    /// with one plain value (text on one line, a number, a boolean), with
    /// why; nil when every line is one of those.
    ///
    /// Every setting is such a line (tables, arrays and multi-line strings
    /// hold none), and only such lines reach TOMLKit: the toml++ 3.4 inside
    /// the TOMLKit release Pods builds with asserts on some malformed tables
    /// and arrays instead of failing (`[#`, `[[[1]]]`, `a=[[}`: its parser
    /// calls on without checking the next character; the first is fixed
    /// upstream in toml++ pull request 301, May 2026), which aborts the
    /// process, and podsd reading its config file at every start would abort
    /// at every start. Found by fuzzing (`Tests/Fuzz/config.swift`).
    public static func unsupportedLine(in text: String) -> (line: Int, why: String)? {
        // Lines as TOML splits them, by scalar: a String's "\r\n" is one Character, never "\n".
        for (index, raw) in text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            var line = raw
            if line.last == "\r" { line = line.dropLast() }
            if index == 0, line.first == "\u{FEFF}" { line = line.dropFirst() }
            if let why = Self.unsupported(line) { return (index + 1, why) }
        }
        return nil
    }

    private static func unsupported(_ line: String.UnicodeScalarView.SubSequence) -> String? {
        func isBlank(_ scalar: Unicode.Scalar) -> Bool { scalar == " " || scalar == "\t" }
        func isKey(_ scalar: Unicode.Scalar) -> Bool {
            scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "_" || scalar == "-")
        }
        var rest = line.drop(while: isBlank)
        guard let first = rest.first, first != "#" else { return nil }
        if first == "[" {
            // One table: `[keys]`, pods ui's keys (the settings stay above it).
            let header = rest.prefix { $0 != "#" }
            if String(String.UnicodeScalarView(header)).trimmingCharacters(in: .whitespaces) == "[\(keysTable)]" { return nil }
            return "Pods' settings are `key = value` lines; the one table is [\(keysTable)]"
        }
        let key = rest.prefix(while: isKey)
        guard !key.isEmpty else { return "a setting is a line `key = value`" }
        rest = rest.dropFirst(key.count).drop(while: isBlank)
        guard rest.first == "=" else { return "a setting is a line `key = value`" }
        rest = rest.dropFirst().drop(while: isBlank)
        switch rest.first {
        case "\"", "'":
            let quote = rest.first ?? "\""
            if rest.starts(with: [quote, quote, quote]) { return "a setting's text is on one line" }
            rest = rest.dropFirst()
            while let scalar = rest.first, scalar != quote {
                if scalar.value < 0x20 && scalar != "\t" || scalar.value == 0x7F { return "the text holds a control character" }
                rest = rest.dropFirst()
                guard quote == "\"", scalar == "\\" else { continue }
                // TOML's escapes: \" \\ \b \t \n \f \r, \uXXXX and \UXXXXXXXX.
                guard let escape = rest.first else { break }
                rest = rest.dropFirst()
                let digits = escape == "u" ? 4 : escape == "U" ? 8 : 0
                if digits == 0 {
                    guard "\"\\btnfr".unicodeScalars.contains(escape) else { return "the text has an escape TOML does not know: \\\(escape)" }
                } else {
                    guard rest.prefix(digits).count == digits, rest.prefix(digits).allSatisfy({ $0.properties.isASCIIHexDigit }) else {
                        return "the text has an escape TOML does not know"
                    }
                    rest = rest.dropFirst(digits)
                }
            }
            guard rest.first == quote else { return "the text has no closing \(quote)" }
            rest = rest.dropFirst()
        case "[", "{":
            return "a setting takes one value, not an array or a table"
        default:
            let token = rest.prefix { !isBlank($0) && $0 != "#" }
            guard !token.isEmpty else { return "a setting needs a value after =" }
            guard Self.isPlainValue(String(String.UnicodeScalarView(token))) else {
                return "a setting's value is a number, true or false, or text in quotes"
            }
            rest = rest.dropFirst(token.count)
        }
        rest = rest.drop(while: isBlank)
        guard rest.isEmpty || rest.first == "#" else { return "one setting a line, with nothing after its value but a comment" }
        return nil
    }

    /// `true`, `false`, `inf`, `nan` or a decimal number as TOML writes one
    /// (`-1`, `+0.5`, `1_000`, `1e-3`): no setting takes a date, and only
    /// values this plain reach TOMLKit's parser.
    static func isPlainValue(_ token: String) -> Bool {
        if token == "true" || token == "false" { return true }
        var rest = Substring(token)
        if rest.first == "+" || rest.first == "-" { rest = rest.dropFirst() }
        if rest == "inf" || rest == "nan" { return true }
        func digits() -> Bool {  // digits, single underscores between them
            var count = 0, lastUnderscore = false
            while let character = rest.first, character.isASCII, character.isNumber || character == "_" {
                if character == "_" { if count == 0 || lastUnderscore { return false }; lastUnderscore = true } else { lastUnderscore = false; count += 1 }
                rest = rest.dropFirst()
            }
            return count > 0 && !lastUnderscore
        }
        guard digits() else { return false }
        if rest.first == "." {
            rest = rest.dropFirst()
            guard digits() else { return false }
        }
        if rest.first == "e" || rest.first == "E" {
            rest = rest.dropFirst()
            if rest.first == "+" || rest.first == "-" { rest = rest.dropFirst() }
            guard digits() else { return false }
        }
        return rest.isEmpty
    }

    static func assigns(_ key: String, _ line: Substring) -> Bool {
        let trimmed = line.drop { $0 == " " || $0 == "\t" }
        guard trimmed.hasPrefix(key) else { return false }
        return trimmed.dropFirst(key.count).drop { $0 == " " || $0 == "\t" }.first == "="
    }

    // MARK: - pods ui's keys

    /// The table of `pods ui`'s keys: `action = "key key…"` (key names as
    /// `pods ui`'s help shows them, separated by spaces).
    public static let keysTable = "keys"

    /// The `[keys]` table of a config text: each action's key names. Its
    /// values are checked by `pods ui`, which knows the actions and keys.
    public static func keyBindings(_ text: String, name: String = "config.toml") throws(SettingsError) -> [String: [String]] {
        if let (line, why) = unsupportedLine(in: text) { throw SettingsError("\(name) line \(line): \(why)") }
        let table: TOMLTable
        do { table = try TOMLTable(string: text) } catch let error as TOMLParseError {
            throw SettingsError("\(name) line \(error.source.begin.line): \(error.description)")
        } catch {
            throw SettingsError("\(name): \(error)")
        }
        guard let keys = table[keysTable]?.table else { return [:] }
        var bindings: [String: [String]] = [:]
        for action in keys.keys {
            guard let value = keys[action]?.string else {
                throw SettingsError("\(name) [\(keysTable)] \(action): keys are text, such as \"space P\"")
            }
            bindings[action] = value.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        }
        return bindings
    }

    // MARK: - Writing

    /// Sets `key` to `value` (nil: removes it, so the default applies).
    /// The file is read, edited and written as one step (`PrivateFile.update`):
    /// two settings changed at once both stay, and a file that cannot be read is
    /// left as it is.
    public func set(_ key: SettingKey, _ value: SettingValue?) throws(SettingsError) {
        let name = url.path
        try PrivateFile.update(url) { current throws(SettingsError) in
            let text = current.map { String(decoding: $0, as: UTF8.self) } ?? Self.template
            let edited = Self.edit(text, key: key, value: value)
            _ = try Self.parse(edited, name: name)  // never write what does not read back
            return Data(edited.utf8)
        }
    }

    /// `text` with `key`'s line replaced, added after its commented
    /// template line, or appended; or removed when `value` is nil.
    static func edit(_ text: String, key: SettingKey, value: SettingValue?) -> String {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let assignment = value.map { "\(key.name) = \($0.toml)" }
        // Settings live above the first [table] (below it, `skip-forward` would be pods ui's key).
        let firstTable = lines.firstIndex { $0.trimmingCharacters(in: .whitespaces).hasPrefix("[") } ?? lines.count
        if let index = lines[..<firstTable].firstIndex(where: { assigns(key.name, Substring($0)) }) {
            if let assignment { lines[index] = assignment } else { lines.remove(at: index) }
        } else if let assignment {
            if let template = lines[..<firstTable].firstIndex(where: { assigns("# " + key.name, Substring($0)) || $0.hasPrefix("# \(key.name) =") }) {
                lines.insert(assignment, at: template + 1)
            } else {
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
        text += """

            # pods ui's keys, over its defaults (? in pods ui lists them): an action, then its keys
            # by name, separated by spaces. Keep this table last: settings go above it.
            # [keys]
            # play-pause = "space P"
            # quit = "q Q"

            """
        return text
    }

}
