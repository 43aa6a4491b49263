extension LinearPattern {
    /// Reads a pattern's syntax into a tree, refusing with one line what the
    /// matcher does not take (`LinearPattern`'s doc lists what it does).
    struct Parser {
        private let scalars: [Unicode.Scalar]
        private var index = 0
        private var depth = 0

        /// Groups nested deeper than this are refused (the parser recurses per group).
        static let maximumDepth = 50

        init(_ scalars: [Unicode.Scalar]) { self.scalars = scalars }

        mutating func parseWhole() throws(SettingsError) -> Node {
            let node = try alternatives()
            guard index == scalars.count else { throw SettingsError("')' at \(index + 1) closes no group") }
            return node
        }

        private var peek: Unicode.Scalar? { index < scalars.count ? scalars[index] : nil }

        private mutating func alternatives() throws(SettingsError) -> Node {
            var branches = [try sequence()]
            while peek == "|" {
                index += 1
                branches.append(try sequence())
            }
            return branches.count == 1 ? branches[0] : .alternatives(branches)
        }

        private mutating func sequence() throws(SettingsError) -> Node {
            var nodes: [Node] = []
            while let scalar = peek, scalar != "|", scalar != ")" {
                let atom = try self.atom()
                nodes.append(try quantified(atom))
            }
            return nodes.isEmpty ? .empty : nodes.count == 1 ? nodes[0] : .sequence(nodes)
        }

        private mutating func quantified(_ atom: Node) throws(SettingsError) -> Node {
            guard let bounds = try quantifier() else { return atom }
            if case .assert = atom { throw SettingsError("an anchor cannot be repeated (at \(index))") }
            if case .empty = atom { throw SettingsError("nothing to repeat at \(index)") }
            if peek == "?" {
                index += 1  // lazy: the same yes or no
            } else if peek == "+" {
                throw SettingsError("possessive quantifiers (at \(index + 1)) are not supported; drop the '+'")
            }
            if let next = peek, "*+?".unicodeScalars.contains(next) || (next == "{" && isCountedQuantifier(at: index)) {
                throw SettingsError("a quantifier at \(index + 1) follows another; group what it repeats")
            }
            return .repeated(atom, min: bounds.min, max: bounds.max)
        }

        /// `*`, `+`, `?` or `{n}`, `{n,}`, `{n,m}` (at most 1,000); nil when none follows.
        private mutating func quantifier() throws(SettingsError) -> (min: Int, max: Int?)? {
            switch peek {
            case "*": index += 1; return (0, nil)
            case "+": index += 1; return (1, nil)
            case "?": index += 1; return (0, 1)
            case "{" where isCountedQuantifier(at: index):
                index += 1
                let low = number() ?? 0
                var high: Int? = low
                if peek == "," {
                    index += 1
                    high = number()
                }
                index += 1  // "}"
                guard low <= 1_000, (high ?? 0) <= 1_000 else { throw SettingsError("a repetition count is at most 1000") }
                if let high, high < low { throw SettingsError("{\(low),\(high)} counts down") }
                return (low, high)
            default: return nil
            }
        }

        /// Whether `{` at `start` begins `{n}`, `{n,}` or `{n,m}` (otherwise it is a literal brace).
        private func isCountedQuantifier(at start: Int) -> Bool {
            var cursor = start + 1, digits = 0
            while cursor < scalars.count, scalars[cursor].properties.numericType == .decimal, scalars[cursor].isASCII { cursor += 1; digits += 1 }
            guard digits > 0, digits <= 7, cursor < scalars.count else { return false }
            if scalars[cursor] == "," {
                cursor += 1
                while cursor < scalars.count, scalars[cursor].isASCII, scalars[cursor].properties.numericType == .decimal { cursor += 1 }
            }
            return cursor < scalars.count && scalars[cursor] == "}"
        }

        private mutating func number() -> Int? {
            var value: Int?
            while let scalar = peek, scalar.isASCII, let digit = Int(String(scalar)), (value ?? 0) < 10_000_000 {
                value = (value ?? 0) * 10 + digit
                index += 1
            }
            return value
        }

        private mutating func atom() throws(SettingsError) -> Node {
            guard let scalar = peek else { return .empty }
            index += 1
            switch scalar {
            case "(": return try group()
            case "[": return .set(try bracketed())
            case ".": return .any
            case "^": return .assert(.textStart)
            case "$": return .assert(.endBeforeFinalNewline)
            case "\\": return try escaped()
            case "*", "+", "?":
                throw SettingsError("'\(scalar)' at \(index) has nothing to repeat")
            case "{" where isCountedQuantifier(at: index - 1):
                throw SettingsError("'{' at \(index) has nothing to repeat")
            default: return .scalar(scalar)
            }
        }

        private mutating func group() throws(SettingsError) -> Node {
            depth += 1
            defer { depth -= 1 }
            guard depth <= Self.maximumDepth else { throw SettingsError("groups are nested at most \(Self.maximumDepth) deep") }
            if peek == "?" {
                index += 1
                if try groupKind() { return .empty }
            }
            let inside = try alternatives()
            guard peek == ")" else { throw SettingsError("a group is not closed: ')' is missing") }
            index += 1
            return inside
        }

        /// After `(?`: a plain or named group goes on; `(?i)` alone (case is
        /// ignored already) is done, and says so (true); what needs
        /// backtracking is refused.
        private mutating func groupKind() throws(SettingsError) -> Bool {
            let rest = String(String.UnicodeScalarView(scalars[index..<min(scalars.count, index + 3)]))
            if rest.hasPrefix(":") { index += 1; return false }
            if rest.hasPrefix("i)") || rest.hasPrefix("i:") {
                // Case is ignored already: (?i) and (?i:…) change nothing.
                index += 2
                return rest.hasPrefix("i)")
            }
            if rest.hasPrefix("=") || rest.hasPrefix("!") || rest.hasPrefix("<=") || rest.hasPrefix("<!") {
                throw SettingsError("lookaround ('(?\(rest.prefix(2))') is not supported in title patterns")
            }
            if rest.hasPrefix(">") { throw SettingsError("atomic groups ('(?>') are not supported in title patterns") }
            let opener: Unicode.Scalar? = rest.hasPrefix("<") ? "<" : rest.hasPrefix("'") ? "'" : rest.hasPrefix("P<") ? "P" : nil
            guard let opener else { throw SettingsError("'(?\(rest.prefix(1))' is not a group title patterns know") }
            index += opener == "P" ? 2 : 1
            let closer: Unicode.Scalar = opener == "'" ? "'" : ">"
            while let scalar = peek, scalar != closer {
                guard scalar == "_" || (scalar.isASCII && scalar.properties.isAlphabetic) || (scalar.isASCII && scalar.properties.numericType == .decimal) else {
                    throw SettingsError("a group's name is letters, digits and '_'")
                }
                index += 1
            }
            guard peek == closer else { throw SettingsError("a group's name is not closed") }
            index += 1
            return false
        }

        private mutating func escaped() throws(SettingsError) -> Node {
            guard let scalar = peek else { throw SettingsError("the pattern ends in '\\'") }
            index += 1
            switch scalar {
            case "A": return .assert(.textStart)
            case "z": return .assert(.textEnd)
            case "Z": return .assert(.endBeforeFinalNewline)
            case "b": return .assert(.wordBoundary)
            case "B": return .assert(.notWordBoundary)
            default:
                if let set = try classEscape(scalar) { return .set(set) }
                return .scalar(try literalEscape(scalar))
            }
        }

        /// `\d \D \w \W \s \S` as a set; nil for any other escape.
        private func classEscape(_ scalar: Unicode.Scalar) throws(SettingsError) -> ScalarSet? {
            let kinds: [Unicode.Scalar: (ScalarClass, Bool)] = [
                "d": (.digit, false), "D": (.digit, true), "w": (.word, false), "W": (.word, true),
                "s": (.space, false), "S": (.space, true),
            ]
            guard let kind = kinds[scalar] else { return nil }
            return ScalarSet(classes: [kind])
        }

        /// The scalar an escape stands for: `\n \t \r \f \v \e \0`, `\xhh`, `\x{h…}`, `\uhhhh`, `\u{h…}`, or
        /// punctuation as itself; a letter or digit with no meaning is refused.
        private mutating func literalEscape(_ scalar: Unicode.Scalar) throws(SettingsError) -> Unicode.Scalar {
            let simple: [Unicode.Scalar: Unicode.Scalar] = ["n": "\n", "t": "\t", "r": "\r", "f": "\u{0C}", "v": "\u{0B}", "e": "\u{1B}", "0": "\u{0}"]
            if let mapped = simple[scalar] { return mapped }
            if scalar == "x" || scalar == "u" {
                var digits = ""
                if peek == "{" {
                    index += 1
                    while let next = peek, next != "}", digits.count < 8 { digits.unicodeScalars.append(next); index += 1 }
                    guard peek == "}" else { throw SettingsError("'\\\(scalar){' is not closed") }
                    index += 1
                } else {
                    let count = scalar == "x" ? 2 : 4
                    while digits.count < count, let next = peek { digits.unicodeScalars.append(next); index += 1 }
                }
                guard let value = UInt32(digits, radix: 16), let result = Unicode.Scalar(value) else {
                    throw SettingsError("'\\\(scalar)\(digits)' names no character")
                }
                return result
            }
            if scalar.isASCII, scalar.properties.isAlphabetic || scalar.properties.numericType != nil {
                if scalar.properties.numericType != nil || scalar == "k" || scalar == "g" {
                    throw SettingsError("backreferences ('\\\(scalar)') are not supported in title patterns")
                }
                throw SettingsError("'\\\(scalar)' is not an escape title patterns know")
            }
            return scalar
        }

        /// After `[`: the class up to its `]`.
        private mutating func bracketed() throws(SettingsError) -> ScalarSet {
            var set = ScalarSet()
            if peek == "^" { set.negated = true; index += 1 }
            var first = true
            while true {
                guard let scalar = peek else { throw SettingsError("a class is not closed: ']' is missing") }
                if scalar == "]", !first { index += 1; return set }
                first = false
                if scalar == "[", index + 1 < scalars.count, scalars[index + 1] == ":" || scalars[index + 1] == "=" {
                    throw SettingsError("POSIX classes ('[:') are not supported in title patterns; use \\d, \\w, \\s or ranges")
                }
                index += 1
                var low: Unicode.Scalar
                if scalar == "\\" {
                    guard let escape = peek else { throw SettingsError("the pattern ends in '\\'") }
                    index += 1
                    if let inner = try classEscape(escape) {
                        set.classes += inner.classes
                        continue
                    }
                    low = escape == "b" ? "\u{8}" : try literalEscape(escape)
                } else {
                    low = scalar
                }
                if peek == "-", index + 1 < scalars.count, scalars[index + 1] != "]" {
                    index += 1
                    guard var high = peek else { throw SettingsError("a class is not closed: ']' is missing") }
                    index += 1
                    if high == "\\" {
                        guard let escape = peek else { throw SettingsError("the pattern ends in '\\'") }
                        index += 1
                        high = try literalEscape(escape)
                    }
                    guard low.value <= high.value else { throw SettingsError("the range \(low)-\(high) counts down") }
                    set.ranges.append(low.value...high.value)
                } else {
                    set.ranges.append(low.value...low.value)
                }
            }
        }
    }
}
