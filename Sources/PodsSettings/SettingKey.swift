import Foundation

/// One setting: its name in `config.toml` and `pods config`, what values
/// it takes, and whether a podcast can have its own.
public struct SettingKey: Sendable, Hashable, CustomStringConvertible {
    /// What a setting's values are.
    public enum Kind: Sendable, Hashable {
        /// A number of `unit`s within `range`.
        case number(ClosedRange<Double>, unit: String)
        case bool
        /// One of these words.
        case choice([String])
        /// Seconds (`30`), or a share of the episode (`5%`).
        case secondsOrPercent(maximumSeconds: Double)
        /// A time: seconds (`3600`) or with units (`1h`, `30m`, `1h30m`, `90s`).
        case interval(maximumSeconds: Double)
        /// A size in bytes: `500M`, `2G`, `1000000` (powers of 1000).
        case size
        /// An http(s) URL.
        case url
        /// Any text on one line (`secret`: never printed back in full).
        case text(secret: Bool)
        /// A case-insensitive regular expression (`TitlePattern`); empty for none.
        case pattern
        /// Some of these words, written with commas between (`full,bonus`).
        case words([String])
    }

    public let name: String
    public let kind: Kind
    public let defaultValue: SettingValue
    /// A podcast may override the global value.
    public let perPodcast: Bool
    /// One line for the config file's comment and `pods config`'s help.
    public let help: String

    public var description: String { name }

    init(_ name: String, _ kind: Kind, default defaultValue: SettingValue, perPodcast: Bool = true, _ help: String) {
        self.name = name
        self.kind = kind
        self.defaultValue = defaultValue
        self.perPodcast = perPodcast
        self.help = help
    }

    /// What a value must look like, for error messages.
    public var expected: String {
        switch kind {
        case .number(let range, let unit):
            "a number of \(unit) from \(SettingValue.number(range.lowerBound).text) to \(SettingValue.number(range.upperBound).text)"
        case .bool: "true or false"
        case .choice(let words): words.map { "'\($0)'" }.joined(separator: " or ")
        case .secondsOrPercent(let maximum): "seconds (0 to \(SettingValue.number(maximum).text)) or a percentage such as 5%"
        case .interval(let maximum): "a time such as 1h, 30m or 90s (0 to \(SettingValue.number(maximum).text) seconds)"
        case .size: "a size such as 500M or 2G"
        case .url: "an http or https URL"
        case .text: "text on one line"
        case .pattern: "a regular expression such as \"^(ad|sponsor)\" (matched without regard to case), or \"\" for none"
        case .words(let words): "some of " + words.joined(separator: ", ") + ", with commas between"
        }
    }

    /// Reads a value as `pods config` is given it; an error says what was expected.
    public func parse(_ text: String) throws(SettingsError) -> SettingValue {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        switch kind {
        case .number:
            guard let number = Double(trimmed) else { throw invalid(text) }
            return try checked(.number(number))
        case .bool:
            switch trimmed.lowercased() {
            case "true", "yes", "on", "1": return .bool(true)
            case "false", "no", "off", "0": return .bool(false)
            default: throw invalid(text)
            }
        case .choice:
            return try checked(.text(trimmed.lowercased()))
        case .pattern:
            if !trimmed.isEmpty { _ = try TitlePattern(trimmed) }  // says why it is no regular expression
            return try checked(.text(trimmed))
        case .words:
            let words = trimmed.lowercased().split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            return try checked(.text(words.joined(separator: ",")))
        case .url, .text:
            return try checked(.text(trimmed))
        case .size:
            guard let bytes = Self.bytes(from: trimmed) else { throw invalid(text) }
            return try checked(.number(Double(bytes)))
        case .interval:
            guard let seconds = Self.seconds(fromUnits: trimmed.lowercased()) else { throw invalid(text) }
            return try checked(.number(seconds))
        case .secondsOrPercent:
            if trimmed.hasSuffix("%") {
                guard let number = Double(trimmed.dropLast().trimmingCharacters(in: .whitespaces)) else { throw invalid(text) }
                return try checked(.percent(number))
            }
            guard let number = Double(trimmed) else { throw invalid(text) }
            return try checked(.number(number))
        }
    }

    /// `value` if it is of this key's kind and within its limits.
    public func checked(_ value: SettingValue) throws(SettingsError) -> SettingValue {
        switch (kind, value) {
        case (.number(let range, _), .number(let number)) where number.isFinite && range.contains(number):
            return value
        case (.bool, .bool):
            return value
        case (.choice(let words), .text(let word)) where words.contains(word):
            return value
        case (.secondsOrPercent(let maximum), .number(let seconds)) where seconds.isFinite && (0...maximum).contains(seconds):
            return value
        case (.secondsOrPercent, .percent(let share)) where share.isFinite && (0...100).contains(share):
            return value
        case (.interval(let maximum), .number(let seconds)) where seconds.isFinite && (0...maximum).contains(seconds):
            return value
        case (.url, .text(let text)) where Self.isHTTPURL(text):
            return value
        case (.size, .number(let bytes)) where bytes.isFinite && bytes >= 0 && bytes < 9e18:
            return value
        case (.text, .text(let text)) where !text.contains("\n") && !text.contains("\r"):
            return value
        case (.pattern, .text(let text)) where text.isEmpty || (try? TitlePattern(text)) != nil:
            return value
        case (.words(let words), .text(let text))
            where !text.isEmpty && text.split(separator: ",", omittingEmptySubsequences: false).allSatisfy({ words.contains(String($0)) }):
            return value
        default:
            throw invalid(value.text)
        }
    }

    private static func isHTTPURL(_ text: String) -> Bool {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased() else { return false }
        return (scheme == "http" || scheme == "https") && url.host?.isEmpty == false
    }

    /// Whether the value is a secret, shown only as set or not.
    public var isSecret: Bool {
        if case .text(secret: true) = kind { return true }
        return false
    }

    /// `123`, `500K`, `500M`, `2G`, `1T` (powers of 1000, like the sizes Pods shows); nil for anything else.
    public static func bytes(from text: String) -> Int64? {
        let units: [Character: Double] = ["K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12]
        var digits = text.uppercased().trimmingCharacters(in: .whitespaces)
        if digits.hasSuffix("B") { digits.removeLast() }
        var factor = 1.0
        if let last = digits.last, let unit = units[last] {
            factor = unit
            digits.removeLast()
        }
        guard let value = Double(digits), value >= 0, value.isFinite, value * factor < 9e18 else { return nil }
        return Int64(value * factor)
    }

    /// `3600`, `1h`, `30m`, `1h30m`, `90s`, `2d`, `4w`; nil for anything else.
    public static func seconds(fromUnits text: String) -> Double? {
        Double(text) ?? UnitTime.seconds(text, units: ["w": 604_800, "d": 86400, "h": 3600, "m": 60, "s": 1])
    }

    private func invalid(_ text: String) -> SettingsError {
        SettingsError("\(name) takes \(expected), not '\(text.prefix(60))'")
    }
}

/// A setting's value.
public enum SettingValue: Sendable, Hashable, CustomStringConvertible {
    case bool(Bool)
    case number(Double)
    case text(String)
    /// A share of the episode, 0...100.
    case percent(Double)

    /// As `pods config` prints it and takes it.
    public var text: String {
        switch self {
        case .bool(let flag): String(flag)
        case .number(let number): Self.format(number)
        case .text(let word): word
        case .percent(let share): Self.format(share) + "%"
        }
    }

    public var description: String { text }

    /// As `config.toml` holds it (a basic string, escaped).
    public var toml: String {
        switch self {
        case .bool, .number: text
        case .text, .percent: "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
        }
    }

    private static func format(_ number: Double) -> String {
        number == number.rounded() && abs(number) < 1e15 ? String(Int64(number)) : String(number)
    }

    public var boolValue: Bool? { if case .bool(let flag) = self { flag } else { nil } }
    public var numberValue: Double? { if case .number(let number) = self { number } else { nil } }
    public var textValue: String? { if case .text(let word) = self { word } else { nil } }
}

/// Why a setting or the config file could not be read or written; one line.
public struct SettingsError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
