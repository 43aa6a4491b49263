import Glibc

/// An item's fingerprint: a hash of its bytes as they stand in the document
/// (with what they are read in the light of: the feed's URL, its XML
/// declaration and the start tags of the elements around the item), and
/// its place among the document's items. The same fingerprint means the
/// same bytes in the same setting, so the item parses to the same episode.
public struct ItemFingerprint: Sendable, Hashable {
    /// The item's place among the document's items (0 first).
    public var ordinal: Int
    public var value: UInt64

    public init(ordinal: Int, value: UInt64) {
        self.ordinal = ordinal
        self.value = value
    }
}

/// Finds a feed's items (`<item>` and `<entry>` elements) in its bytes as
/// they stream to libxml2, fingerprints each, and leaves out those whose
/// fingerprint the caller already knows: a refresh of a 3,000-episode feed
/// that gained three parses three items (and the channel), and scans and
/// hashes the rest. The bytes it passes on are the document without the
/// known items: whole elements are left out, so the rest parses as before.
///
/// Works on bytes already through `DocumentRepair` (so a `<` in text is a
/// reference by then), in an ASCII-compatible encoding. It follows the
/// markup (tags and their quoted values, comments, CDATA sections,
/// processing instructions, declarations) to know where each item starts
/// and ends; an item is held until its end (at most `maximumItemBytes`,
/// past which it is passed on unfingerprinted).
struct ItemSkipper {
    /// The ordinals of the items passed on, in the order libxml2 will
    /// reach them (`takePassed` hands each item's episode its own).
    private var passed: [Int] = []
    private var nextPassed = 0
    private var mismatched = false
    /// Each item's fingerprint by ordinal, once the item has ended: none
    /// for one too large to hold or too deep.
    private var fingerprints: [UInt64?] = []

    /// The ordinal of the next item libxml2 reaches (of those passed on, in order).
    mutating func takePassed() -> Int? {
        guard nextPassed < passed.count else {
            mismatched = true
            return nil
        }
        defer { nextPassed += 1 }
        return passed[nextPassed]
    }

    /// Whether every item libxml2 reached was one passed on, and the other way round.
    var pairedUp: Bool { !mismatched && nextPassed == passed.count }

    /// The fingerprint of the `ordinal`th item, if it has one.
    func fingerprint(_ ordinal: Int) -> UInt64? {
        ordinal < fingerprints.count ? fingerprints[ordinal] : nil
    }
    /// The items left out.
    private(set) var skipped: [ItemFingerprint] = []

    /// An item longer than this is passed on without a fingerprint.
    static let maximumItemBytes = 4 << 20
    /// Changes when what the parser makes of an item changes, so that
    /// fingerprints stored by an older parser are not trusted.
    static let version: UInt64 = 4

    private let known: Set<UInt64>
    private var seed: WordHash

    private enum State {
        case text
        /// After `<`: what kind of markup it opens is not known yet.
        case open
        /// In a start tag's name, then in the rest of the tag.
        case startName, startTag
        case quoted(UInt8)
        case endTag
        /// After `<!`, matching `<!--` or `<![CDATA[`.
        case bang
        case comment, cdata, processingInstruction
        /// `<!DOCTYPE …>` and the like; the depth of `[` brackets.
        case declaration(Int)
    }

    private var state = State.text
    /// Bytes not yet passed on, from the absolute offset `heldFrom`.
    private var held: [UInt8] = []
    private var heldFrom = 0
    /// Absolute offset of the next byte to scan.
    private var offset = 0
    /// The bytes before this absolute offset are decided: passed on or cut.
    private var decided = 0
    private var out: [UInt8] = []
    /// Where the markup being read starts, its first bytes (a tag's name,
    /// or `<!…`), and the last two bytes seen in it.
    private var tagStart = 0
    private var markup: [UInt8] = []
    private var lastTagByte: UInt8 = 0
    private var last2: (UInt8, UInt8) = (0, 0)
    /// Open elements (clamped at 0 for a document that closes more than it opens).
    private var depth = 0
    /// The hash of each open element's start tag, outside items.
    private var ancestors: [UInt64] = []
    /// The item being read: where it starts and its element's depth, and
    /// whether it gets a fingerprint (one too large to hold, or too deep to
    /// know its setting, is passed on as it comes, its place in `passed`
    /// taken at once, before libxml2 reaches it).
    private var item: (start: Int, depth: Int, ordinal: Int, fingerprinted: Bool)?
    /// The open item's hash so far, and where the bytes it has taken end.
    private var itemHash = WordHash.Streaming(WordHash())
    private var hashedUpTo = 0
    /// Items are held whole only when one may be left out.
    private var holdsItems: Bool { !known.isEmpty }
    private var itemCount = 0
    private var sawElement = false

    /// Skips the items whose fingerprints are in `known`; `baseURL` is
    /// what relative links in the items resolve against.
    init(known: Set<UInt64>, baseURL: String?) {
        self.known = known
        seed = WordHash(seed: 0x9E37_79B9_7F4A_7C15 ^ Self.version)
        var url = baseURL ?? ""
        url.withUTF8 { seed.bytes(UnsafeRawBufferPointer($0)) }
    }

    /// The bytes to parse of the next piece of the document.
    mutating func process(_ bytes: [UInt8]) -> [UInt8] {
        if held.isEmpty { held = bytes } else { held.append(contentsOf: bytes) }
        scan()
        var keepFrom = offset
        if let open = item, open.fingerprinted {
            hashItem(from: open.start, upTo: offset)
            if holdsItems {
                if offset - open.start <= Self.maximumItemBytes { keepFrom = open.start } else { giveUp() }  // too long to hold
            }
        }
        // A tag that may start an item, or the XML declaration (hashed whole into every item's setting
        // when it ends, however many pieces it spans).
        if !Self.isBetweenMarkup(state) || readsDeclaration { keepFrom = min(keepFrom, tagStart) }
        if decided == heldFrom, keepFrom == heldFrom + held.count {
            // Nothing left out, nothing held back: the bytes as they are.
            let all = held
            held = []
            heldFrom = keepFrom
            decided = keepFrom
            return all
        }
        pass(upTo: keepFrom)
        held.removeSubrange(0..<(decided - heldFrom))
        heldFrom = decided
        defer { out = [] }
        return out
    }

    /// Adds the bytes of the item that starts at `start` up to `end`
    /// (absolute) to its hash.
    private mutating func hashItem(from start: Int, upTo end: Int) {
        let from = max(hashedUpTo, start)
        guard end > from else { return }
        let range = (from - heldFrom)..<(end - heldFrom)
        var hash = itemHash
        held.withUnsafeBytes { hash.add(UnsafeRawBufferPointer(rebasing: $0[range])) }
        itemHash = hash
        hashedUpTo = end
    }

    /// The rest, at the end of the document: an item still open is passed on without a fingerprint.
    mutating func finish() -> [UInt8] {
        if item?.fingerprinted == true { giveUp() }
        item = nil
        pass(upTo: heldFrom + held.count)
        held = []
        heldFrom = decided
        defer { out = [] }
        return out
    }

    /// The open item goes on without a fingerprint, its bytes as they come
    /// (an item not held has its place in `passed` from its start).
    private mutating func giveUp() {
        item?.fingerprinted = false
        if holdsItems, let open = item { passed.append(open.ordinal) }
    }

    /// Inside a processing instruction before the first element: the XML
    /// declaration, whose bytes `scan` reads whole when it ends.
    private var readsDeclaration: Bool {
        if case .processingInstruction = state, !sawElement, item == nil { return true }
        return false
    }

    private static func isBetweenMarkup(_ state: State) -> Bool {
        switch state {
        case .text, .comment, .cdata, .processingInstruction, .declaration: true
        default: false
        }
    }

    /// Passes on the held bytes up to `end` (absolute) not yet decided.
    private mutating func pass(upTo end: Int) {
        guard end > decided else { return }
        out.append(contentsOf: held[(decided - heldFrom)..<(end - heldFrom)])
        decided = end
    }

    // MARK: - Scanning

    private mutating func scan() {
        var index = offset - heldFrom
        let count = held.count
        scanning: while index < count {
            switch state {
            case .text:
                // Straight to the next `<`.
                guard let next = Self.find(0x3C, in: held, from: index) else {
                    index = count
                    continue
                }
                index = next
                tagStart = heldFrom + index
                state = .open
            case .open:
                let byte = held[index]
                markup.removeAll(keepingCapacity: true)
                switch byte {
                case UInt8(ascii: "/"): state = .endTag
                case UInt8(ascii: "!"): state = .bang; markup = [UInt8(ascii: "<"), byte]
                case UInt8(ascii: "?"): state = .processingInstruction; last2 = (0, 0)
                default:
                    markup.append(byte)
                    state = .startName
                    lastTagByte = byte
                }
            case .startName:
                // The name, up to a space, `/` or `>`.
                var end = index
                while end < count, !Self.endsName(held[end]) { end += 1 }
                let room = 16 - markup.count
                if room > 0 { markup.append(contentsOf: held[index..<min(end, index + room)]) }
                if end > index { lastTagByte = held[end - 1] }
                index = end
                if end < count { state = .startTag }
                continue
            case .startTag:
                // Straight to the next quote or `>`.
                var end = index
                while end < count {
                    let next = held[end]
                    if next == UInt8(ascii: ">") || next == UInt8(ascii: "\"") || next == UInt8(ascii: "'") { break }
                    if !TextBytes.isSpace(next) { lastTagByte = next }
                    end += 1
                }
                index = end
                guard end < count else { continue }
                let stop = held[end]
                if stop == UInt8(ascii: ">") {
                    state = .text
                    startTagEnded(at: index, selfClosing: lastTagByte == UInt8(ascii: "/"))
                } else {
                    state = .quoted(stop)
                }
            case .quoted(let quote):
                guard let close = Self.find(quote, in: held, from: index) else {
                    index = count
                    continue
                }
                index = close
                state = .startTag
                lastTagByte = quote
            case .endTag:
                guard let close = Self.find(UInt8(ascii: ">"), in: held, from: index) else {
                    index = count
                    continue
                }
                index = close
                state = .text
                endTagEnded(at: index)
            case .bang:
                markup.append(held[index])
                if markup == Self.commentStart {
                    state = .comment
                    last2 = (0, 0)
                } else if markup == Self.cdataStart {
                    state = .cdata
                } else if !Self.commentStart.starts(with: markup) && !Self.cdataStart.starts(with: markup) {
                    state = .declaration(0)
                    continue  // the same byte, in the declaration
                }
            case .cdata:
                // Straight to the next `]`; `]]>` ends the section (HTML inside has many `>`).
                guard let bracket = Self.find(UInt8(ascii: "]"), in: held, from: index) else {
                    index = count
                    continue
                }
                guard bracket + 2 < count else {
                    index = bracket  // decided when the next bytes come
                    break scanning
                }
                if held[bracket + 1] == UInt8(ascii: "]"), held[bracket + 2] == UInt8(ascii: ">") {
                    index = bracket + 2
                    state = .text
                } else {
                    index = bracket
                }
            case .comment, .processingInstruction:
                // Straight to the next `>`, then a look at the two bytes before it.
                guard let close = Self.find(0x3E, in: held, from: index) else {
                    last2 = Self.lastTwo(held, before: count, from: index, carried: last2)
                    index = count
                    continue
                }
                let before = Self.lastTwo(held, before: close, from: index, carried: last2)
                last2 = (before.1, UInt8(ascii: ">"))
                index = close
                let ends = if case .comment = state {
                    before == (UInt8(ascii: "-"), UInt8(ascii: "-"))
                } else {
                    before.1 == UInt8(ascii: "?")
                }
                if ends {
                    if case .processingInstruction = state, !sawElement, item == nil {
                        // The XML declaration is part of how every item reads.
                        let range = (tagStart - heldFrom)...index
                        var declaration = seed
                        held.withUnsafeBytes { declaration.bytes(UnsafeRawBufferPointer(rebasing: $0[range])) }
                        seed = declaration
                    }
                    state = .text
                }
            case .declaration(let brackets):
                let byte = held[index]
                if byte == UInt8(ascii: "[") { state = .declaration(brackets + 1) }
                else if byte == UInt8(ascii: "]") { state = .declaration(max(0, brackets - 1)) }
                else if byte == UInt8(ascii: ">"), brackets == 0 { state = .text }
            }
            index += 1
        }
        offset = heldFrom + index
    }

    @inline(__always)
    private static func endsName(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: ">") || byte == UInt8(ascii: "/") || TextBytes.isSpace(byte)
    }

    /// The index of the first `byte` in `bytes` from `start`.
    private static func find(_ byte: UInt8, in bytes: [UInt8], from start: Int) -> Int? {
        bytes.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress, start < buffer.count,
                  let found = memchr(base + start, Int32(byte), buffer.count - start) else { return nil }
            return UnsafeRawPointer(found).assumingMemoryBound(to: UInt8.self) - base
        }
    }

    /// The two bytes before `end`, reaching back into `carried` (the last
    /// two before `from`) when fewer lie between.
    private static func lastTwo(_ bytes: [UInt8], before end: Int, from: Int, carried: (UInt8, UInt8)) -> (UInt8, UInt8) {
        switch end - from {
        case 0: carried
        case 1: (carried.1, bytes[end - 1])
        default: (bytes[end - 2], bytes[end - 1])
        }
    }

    /// A start tag ended with the `>` at `index` (in `held`).
    private mutating func startTagEnded(at index: Int, selfClosing: Bool) {
        sawElement = true
        if item == nil {
            if markup == Self.itemName || markup == Self.entryName {
                item = (start: tagStart, depth: depth, ordinal: itemCount, fingerprinted: true)
                itemCount += 1
                fingerprints.append(nil)
                // Not held (nothing can be left out): libxml2 reaches it before its end.
                if !holdsItems { passed.append(itemCount - 1) }
                var setting = seed
                for ancestor in ancestors { setting.word(ancestor) }
                setting.word(UInt64(ancestors.count))
                itemHash = WordHash.Streaming(setting)
                hashedUpTo = tagStart
                // An item too deep to know its setting gets no fingerprint.
                if ancestors.count != depth { giveUp() }
                if selfClosing { itemEnded(at: index) }
            } else if !selfClosing, ancestors.count == depth, depth < XMLStreamParser.maximumDepth {
                var tag = WordHash()
                let range = (tagStart - heldFrom)...index
                held.withUnsafeBytes { tag.bytes(UnsafeRawBufferPointer(rebasing: $0[range])) }
                ancestors.append(tag.value)
            }
        }
        if !selfClosing { depth += 1 }
    }

    private mutating func endTagEnded(at index: Int) {
        depth = max(0, depth - 1)
        if let open = item {
            if depth <= open.depth { itemEnded(at: index) }
        } else if ancestors.count > depth {
            ancestors.removeLast(ancestors.count - depth)
        }
    }

    /// The item being read ended with the `>` at `index` (in `held`).
    private mutating func itemEnded(at index: Int) {
        guard let open = item else { return }
        item = nil
        guard open.fingerprinted else { return }  // its place in `passed` is taken
        hashItem(from: open.start, upTo: heldFrom + index + 1)
        let value = itemHash.finish()
        let fingerprint = ItemFingerprint(ordinal: open.ordinal, value: value)
        guard known.contains(value) else {
            fingerprints[open.ordinal] = value
            if holdsItems { passed.append(open.ordinal) }
            return
        }
        skipped.append(fingerprint)
        pass(upTo: open.start)
        decided = heldFrom + index + 1  // left out
    }

    private static let itemName = Array("item".utf8)
    private static let entryName = Array("entry".utf8)
    private static let commentStart = Array("<!--".utf8)
    private static let cdataStart = Array("<![CDATA[".utf8)
}
