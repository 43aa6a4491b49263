/// A regular expression compiled for a matcher that never backtracks: the
/// text is read once, left to right, carrying every place the pattern could
/// be in at once (Thompson's construction, run as a Pike VM without
/// captures). Its time is the title's length times the pattern's size,
/// whatever either holds: `(a+)+$` against 300 `a`s and a `!` costs what
/// `a+$` does. (Swift's `Regex` backtracks, and such a pair held podsd at
/// 100 % CPU for ten minutes: ADVERSARIAL-5, finding 1.)
///
/// The language is what title patterns need, matched over Unicode scalars
/// without regard to case: literals and escapes, `.`, classes (`[a-z]`,
/// `[^…]`, `\d \w \s` and their negations), anchors `^ $ \A \z \Z \b \B`,
/// groups (`(…)`, `(?:…)`, named), alternation, and the quantifiers
/// `* + ? {n} {n,} {n,m}` (a lazy `?` after one changes nothing for a
/// yes-or-no match). What needs backtracking to mean anything —
/// backreferences, lookaround, atomic groups, possessive quantifiers — is
/// refused with the reason.
///
/// Hand-written: no package among the local copies matches without
/// backtracking, and this is the whole of it.
struct LinearPattern: Sendable {
    /// The most instructions a pattern may compile to (a counted repetition
    /// copies what it repeats): bounds the work per title character.
    static let maximumProgram = 2_000

    private let program: [Instruction]
    /// The pattern as plain text (folded), when it is nothing else: the most
    /// common pattern, matched as a substring (a playlist's title rule runs
    /// once per episode for each count).
    private let literal: [Unicode.Scalar]?

    init(_ source: String) throws(SettingsError) {
        var parser = Parser(Array(source.unicodeScalars))
        let node = try parser.parseWhole()
        var compiler = Compiler()
        try compiler.emit(node)
        compiler.program.append(.match)
        program = compiler.program
        var scalars: [Unicode.Scalar] = []
        for instruction in program.dropLast() {
            guard case .scalar(let scalar) = instruction else { break }
            scalars.append(scalar)
        }
        literal = scalars.count == program.count - 1 ? scalars : nil
    }

    /// Whether the pattern occurs anywhere in `text`.
    func occurs(in text: some Sequence<Unicode.Scalar>) -> Bool {
        let input = text.map(CaseFold.lower)
        if let literal { return Self.contains(input, literal) }
        var current = ThreadList(capacity: program.count), next = ThreadList(capacity: program.count)
        var generation = 1
        for index in 0...input.count {
            // An unanchored search: a new start at every place.
            add(0, at: index, input, to: &current, generation: generation)
            if current.matched { return true }
            guard index < input.count else { break }
            generation += 1
            next.clear()
            let scalar = input[index]
            for pc in current.pcs where program[pc].consumes(scalar) {
                add(pc + 1, at: index + 1, input, to: &next, generation: generation)
            }
            if next.matched { return true }
            swap(&current, &next)
        }
        return current.matched
    }

    /// Whether `needle` occurs in `haystack` (both folded).
    private static func contains(_ haystack: [Unicode.Scalar], _ needle: [Unicode.Scalar]) -> Bool {
        guard let first = needle.first else { return true }
        guard haystack.count >= needle.count else { return false }
        var start = 0
        while start <= haystack.count - needle.count {
            if haystack[start] == first {
                var offset = 1
                while offset < needle.count, haystack[start + offset] == needle[offset] { offset += 1 }
                if offset == needle.count { return true }
            }
            start += 1
        }
        return false
    }

    /// Adds `pc` and every instruction reached from it without reading a
    /// character, each once per step.
    private func add(_ start: Int, at index: Int, _ input: [Unicode.Scalar], to list: inout ThreadList, generation: Int) {
        var stack = [start]
        while let pc = stack.popLast() {
            guard list.mark(pc, generation) else { continue }
            switch program[pc] {
            case .jump(let target): stack.append(target)
            case .split(let first, let second): stack.append(second); stack.append(first)
            case .assert(let assertion):
                if assertion.holds(at: index, in: input) { stack.append(pc + 1) }
            case .match: list.matched = true
            case .scalar, .any, .set: list.pcs.append(pc)
            }
        }
    }

    private struct ThreadList {
        var pcs: [Int] = []
        var seen: [Int]
        var matched = false

        init(capacity: Int) { seen = Array(repeating: 0, count: capacity) }

        mutating func clear() { pcs.removeAll(keepingCapacity: true); matched = false }

        /// False when `pc` is already in this step's list.
        mutating func mark(_ pc: Int, _ generation: Int) -> Bool {
            guard seen[pc] != generation else { return false }
            seen[pc] = generation
            return true
        }
    }

    enum Assertion: Sendable {
        case textStart, textEnd, endBeforeFinalNewline, wordBoundary, notWordBoundary

        func holds(at index: Int, in input: [Unicode.Scalar]) -> Bool {
            switch self {
            case .textStart: return index == 0
            case .textEnd: return index == input.count
            case .endBeforeFinalNewline: return index == input.count || (index == input.count - 1 && input[index] == "\n")
            case .wordBoundary, .notWordBoundary:
                let before = index > 0 && ScalarClass.word.contains(input[index - 1])
                let after = index < input.count && ScalarClass.word.contains(input[index])
                return (before != after) == (self == .wordBoundary)
            }
        }
    }

    enum Instruction: Sendable {
        case scalar(Unicode.Scalar)  // already folded to lower case
        case any  // every scalar but a line feed
        case set(ScalarSet)
        case split(Int, Int)  // both, the first preferred (which matters to no yes-or-no answer)
        case jump(Int)
        case assert(Assertion)
        case match

        func consumes(_ scalar: Unicode.Scalar) -> Bool {
            switch self {
            case .scalar(let wanted): return scalar == wanted
            case .any: return scalar != "\n"
            case .set(let set): return set.contains(scalar)
            default: return false
            }
        }
    }

    // MARK: - The syntax tree

    indirect enum Node: Sendable {
        case empty
        case scalar(Unicode.Scalar)
        case any
        case set(ScalarSet)
        case assert(Assertion)
        case sequence([Node])
        case alternatives([Node])
        case repeated(Node, min: Int, max: Int?)
    }

    private struct Compiler {
        var program: [Instruction] = []

        mutating func emit(_ node: Node) throws(SettingsError) {
            guard program.count < LinearPattern.maximumProgram else {
                throw SettingsError("the pattern is too large once its repetitions are counted out; repeat less")
            }
            switch node {
            case .empty: break
            case .scalar(let scalar): program.append(.scalar(CaseFold.lower(scalar)))
            case .any: program.append(.any)
            case .set(let set): program.append(.set(set))
            case .assert(let assertion): program.append(.assert(assertion))
            case .sequence(let nodes): for node in nodes { try emit(node) }
            case .alternatives(let nodes):
                // split L1, next; L1: a; jump end; next: split L2, … ; last
                var jumps: [Int] = []
                for (offset, node) in nodes.enumerated() {
                    if offset < nodes.count - 1 {
                        let split = program.count
                        program.append(.split(split + 1, -1))
                        try emit(node)
                        jumps.append(program.count)
                        program.append(.jump(-1))
                        program[split] = .split(split + 1, program.count)
                    } else {
                        try emit(node)
                    }
                }
                for jump in jumps { program[jump] = .jump(program.count) }
            case .repeated(let node, let min, let max):
                for _ in 0..<min { try emit(node) }
                if let max {
                    // Each optional copy: split in, out.
                    var splits: [Int] = []
                    for _ in min..<max {
                        splits.append(program.count)
                        program.append(.split(program.count + 1, -1))
                        try emit(node)
                    }
                    for split in splits { program[split] = .split(split + 1, program.count) }
                } else {
                    // loop: split body, out; body; jump loop
                    let loop = program.count
                    program.append(.split(loop + 1, -1))
                    try emit(node)
                    program.append(.jump(loop))
                    program[loop] = .split(loop + 1, program.count)
                }
            }
            guard program.count <= LinearPattern.maximumProgram else {
                throw SettingsError("the pattern is too large once its repetitions are counted out; repeat less")
            }
        }
    }
}

/// Case folding for patterns and titles: a scalar's lower case where that
/// is one scalar, else the scalar itself.
enum CaseFold {
    static func lower(_ scalar: Unicode.Scalar) -> Unicode.Scalar {
        if scalar.isASCII {
            return scalar.value >= 0x41 && scalar.value <= 0x5A ? Unicode.Scalar(scalar.value | 0x20)! : scalar
        }
        let mapped = scalar.properties.lowercaseMapping.unicodeScalars
        return mapped.count == 1 ? mapped.first! : scalar
    }

    static func upper(_ scalar: Unicode.Scalar) -> Unicode.Scalar {
        if scalar.isASCII {
            return scalar.value >= 0x61 && scalar.value <= 0x7A ? Unicode.Scalar(scalar.value & ~0x20)! : scalar
        }
        let mapped = scalar.properties.uppercaseMapping.unicodeScalars
        return mapped.count == 1 ? mapped.first! : scalar
    }
}

/// The classes `\d`, `\w` and `\s` stand for.
enum ScalarClass: Sendable, Equatable {
    case digit, word, space

    func contains(_ scalar: Unicode.Scalar) -> Bool {
        switch self {
        case .digit: return scalar.properties.numericType == .decimal
        case .word: return scalar == "_" || scalar.properties.isAlphabetic || scalar.properties.numericType == .decimal
        case .space: return scalar.properties.isWhitespace
        }
    }
}

/// A bracketed class (or `\d`, `\W`, …): ranges and classes, perhaps negated,
/// asked about a folded (lower-case) scalar and its upper case.
struct ScalarSet: Sendable {
    var ranges: [ClosedRange<UInt32>] = []
    var classes: [(ScalarClass, Bool)] = []  // the class, and whether it is negated (`\D`)
    var negated = false

    func contains(_ scalar: Unicode.Scalar) -> Bool {
        let found = holds(scalar) || holds(CaseFold.upper(scalar))
        return found != negated
    }

    private func holds(_ scalar: Unicode.Scalar) -> Bool {
        ranges.contains { $0.contains(scalar.value) } || classes.contains { $0.0.contains(scalar) != $0.1 }
    }
}
