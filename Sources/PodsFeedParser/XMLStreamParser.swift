import Foundation
internal import CLibXML2

/// What the streaming parser reports, in document order.
protocol XMLStreamHandler: AnyObject {
    func startElement(_ name: XMLName, attributes: XMLAttributes)
    /// The end of the innermost open element.
    func endElement()
    /// Character data, in pieces; valid only during the call.
    func text(_ bytes: UnsafeBufferPointer<UInt8>)
}

/// An element's name, interned for the whole parse: every element with the
/// same name, namespace and prefix is the same object with the same `id`
/// (0, 1, 2, … in order of first appearance), so a handler can remember
/// what it made of a name.
final class XMLName {
    let id: Int
    let local: String
    let namespace: String?
    /// Matters only when `namespace` is nil: an undeclared prefix such as
    /// `itunes:` in a feed that forgot its xmlns.
    let prefix: String?

    init(id: Int, local: String, namespace: String?, prefix: String?) {
        self.id = id
        self.local = local
        self.namespace = namespace
        self.prefix = prefix
    }
}

/// One attribute of an element, kept.
struct XMLAttribute {
    var name: String
    var namespace: String?
    var value: String
}

/// An element's attributes as libxml2 reports them, read on demand: valid
/// only during the `startElement` call (keep `all` to read them later).
/// An attribute nobody asks for is never made into a String.
struct XMLAttributes {
    /// Five pointers per attribute: local name, prefix, URI, value start, value end.
    private let pointers: UnsafePointer<UnsafePointer<UInt8>?>?
    let count: Int

    init(_ pointers: UnsafePointer<UnsafePointer<UInt8>?>?, count: Int) {
        self.pointers = pointers
        self.count = pointers == nil ? 0 : count
    }

    /// The value of the first attribute whose local name is `name`, in any namespace.
    subscript(_ name: String) -> String? {
        guard let pointers else { return nil }
        for index in 0..<count {
            guard let local = pointers[index * 5], Self.equals(local, name) else { continue }
            return value(at: index)
        }
        return nil
    }

    /// The value of the attribute `name` in the namespace `namespace`.
    func value(_ name: String, namespace: String) -> String? {
        guard let pointers else { return nil }
        for index in 0..<count {
            guard let local = pointers[index * 5], let uri = pointers[index * 5 + 2],
                  Self.equals(local, name), Self.equals(uri, namespace) else { continue }
            return value(at: index)
        }
        return nil
    }

    /// Every attribute, kept.
    var all: [XMLAttribute] {
        guard let pointers else { return [] }
        return (0..<count).compactMap { index in
            guard let local = pointers[index * 5], let value = value(at: index) else { return nil }
            return XMLAttribute(name: String(cString: local), namespace: pointers[index * 5 + 2].map { String(cString: $0) }, value: value)
        }
    }

    private func value(at index: Int) -> String? {
        guard let pointers, let start = pointers[index * 5 + 3], let end = pointers[index * 5 + 4] else { return nil }
        let bytes = UnsafeBufferPointer(start: start, count: end - start)
        let raw = String(decoding: bytes, as: UTF8.self)
        // Without entity substitution libxml2 leaves references in attribute values.
        return memchr(start, 0x26, bytes.count) != nil ? HTMLText.decodeReferences(raw) : raw
    }

    /// Whether the NUL-terminated `bytes` spell `text` (read no further than
    /// the first difference, so never past the NUL).
    private static func equals(_ bytes: UnsafePointer<UInt8>, _ text: String) -> Bool {
        var index = 0
        for byte in text.utf8 {
            guard bytes[index] == byte else { return false }
            index += 1
        }
        return bytes[index] == 0
    }
}

/// libxml2's SAX2 push parser, fed in chunks: never a whole-document tree.
///
/// Safe by construction: no `XML_PARSE_NOENT`, no DTD loading, no network;
/// entity declarations are not recorded, so no entity is ever expanded
/// (billion laughs and external entities have nothing to act on).
/// `DocumentRepair` turns named references into character references
/// before the parser sees them, so HTML's (`&nbsp;`, `&eacute;`) come
/// back as their characters and recover mode loses no text after an error.
final class XMLStreamParser {
    /// Why parsing stopped early.
    enum Stop: Error {
        case tooDeep(Int)
        case tooLarge(Int)
    }

    private let context: UnsafeMutablePointer<xmlParserCtxt>
    private let box: Box
    private(set) var bytesFed = 0

    /// The most nested elements a feed may have.
    static let maximumDepth = 256

    init(handler: XMLStreamHandler) throws(FeedError) {
        box = Box(handler: handler)
        var sax = xmlSAXHandler()
        sax.initialized = UInt32(XML_SAX2_MAGIC)
        sax.startElementNs = { context, localname, prefix, uri, _, _, count, _, attributes in
            guard let context, let localname else { return }
            Box.from(context).startElement(localname, prefix, uri, Int(count), attributes)
        }
        sax.endElementNs = { context, _, _, _ in
            guard let context else { return }
            Box.from(context).endElement()
        }
        sax.characters = { context, characters, length in
            guard let context, let characters else { return }
            Box.from(context).characters(characters, Int(length))
        }
        sax.cdataBlock = sax.characters
        sax.serror = { context, error in
            guard let context, let error else { return }
            Box.from(context).recordError(error)
        }
        let unmanaged = Unmanaged.passUnretained(box).toOpaque()
        guard let context = xmlCreatePushParserCtxt(&sax, unmanaged, nil, 0, nil) else {
            throw FeedError(.malformed, "could not create an XML parser")
        }
        self.context = context
        let options = Int32(XML_PARSE_RECOVER.rawValue | XML_PARSE_NONET.rawValue | XML_PARSE_NOERROR.rawValue
                            | XML_PARSE_NOWARNING.rawValue | XML_PARSE_NOCDATA.rawValue)
        xmlCtxtUseOptions(context, options)
        box.context = context
    }

    deinit { xmlFreeParserCtxt(context) }

    /// Feeds the next bytes of the document.
    func feed(_ bytes: UnsafeRawBufferPointer) throws(FeedError) {
        bytesFed += bytes.count
        var offset = 0
        while offset < bytes.count {  // xmlParseChunk takes an Int32 length
            let length = min(bytes.count - offset, 1 << 20)
            xmlParseChunk(context, bytes.baseAddress.map { $0.assumingMemoryBound(to: CChar.self) + offset }, Int32(length), 0)
            offset += length
            try checkStopped()
        }
    }

    /// Ends the document.
    func finish() throws(FeedError) {
        xmlParseChunk(context, nil, 0, 1)
        try checkStopped()
    }

    /// The first fatal error libxml2 reported, if any (in recover mode the
    /// parse goes on past it as far as it can).
    var firstError: String? { box.firstError }

    private func checkStopped() throws(FeedError) {
        if let depth = box.tooDeep {
            throw FeedError(.tooDeep, "elements nested more than \(depth) deep")
        }
    }

    // MARK: - Callbacks

    /// What libxml2's callbacks reach through their user-data pointer.
    private final class Box {
        let handler: XMLStreamHandler
        var context: UnsafeMutablePointer<xmlParserCtxt>?
        var depth = 0
        var tooDeep: Int?
        var firstError: String?

        init(handler: XMLStreamHandler) { self.handler = handler }

        static func from(_ pointer: UnsafeMutableRawPointer) -> Box {
            Unmanaged<Box>.fromOpaque(pointer).takeUnretainedValue()
        }

        func startElement(_ localname: UnsafePointer<xmlChar>, _ prefix: UnsafePointer<xmlChar>?,
                          _ uri: UnsafePointer<xmlChar>?, _ count: Int,
                          _ attributes: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?) {
            depth += 1
            if depth > XMLStreamParser.maximumDepth {
                if tooDeep == nil, let context { tooDeep = XMLStreamParser.maximumDepth; xmlStopParser(context) }
                return
            }
            handler.startElement(name(localname, prefix, uri), attributes: XMLAttributes(UnsafePointer(attributes), count: count))
        }

        func endElement() {
            depth -= 1
            guard depth < XMLStreamParser.maximumDepth else { return }
            handler.endElement()
        }

        func characters(_ characters: UnsafePointer<xmlChar>, _ length: Int) {
            guard depth <= XMLStreamParser.maximumDepth else { return }
            handler.text(UnsafeBufferPointer(start: characters, count: length))
        }

        func recordError(_ error: UnsafeMutablePointer<xmlError>) {
            guard firstError == nil, error.pointee.level.rawValue >= XML_ERR_ERROR.rawValue else { return }
            let message = error.pointee.message.map { String(cString: $0) } ?? "XML error"
            firstError = "line \(error.pointee.line): \(message.trimmingCharacters(in: .whitespacesAndNewlines))"
        }

        /// Names, prefixes and namespace URIs come from libxml2's dictionary,
        /// which interns them for the whole parse: one XMLName per distinct
        /// triple, looked up in a cache in front of the dictionary first (a
        /// feed repeats a few dozen names, and hashing them cost more than
        /// the rest of an element).
        private var names: [NameKey: XMLName] = [:]
        private var recentNames = AddressCache<NameKey, XMLName>()

        private struct NameKey: Hashable {
            let local: UnsafeRawPointer
            let prefix: UnsafeRawPointer?
            let uri: UnsafeRawPointer?
        }

        private func name(_ local: UnsafePointer<xmlChar>, _ prefix: UnsafePointer<xmlChar>?, _ uri: UnsafePointer<xmlChar>?) -> XMLName {
            let key = NameKey(local: local, prefix: prefix.map(UnsafeRawPointer.init), uri: uri.map(UnsafeRawPointer.init))
            if let recent = recentNames[key, at: key.local] { return recent }
            let found: XMLName
            if let known = names[key] {
                found = known
            } else {
                func string(_ pointer: UnsafePointer<xmlChar>) -> String { String(cString: pointer) }
                found = XMLName(id: names.count, local: string(local), namespace: uri.map(string), prefix: prefix.map(string))
                names[key] = found
            }
            recentNames[key, at: key.local] = found
            return found
        }
    }
}

/// The last value stored in each of 256 slots, chosen by an address:
/// a lookup without hashing the key, in front of a dictionary.
private struct AddressCache<Key: Equatable, Value> {
    private var slots = [(key: Key, value: Value)?](repeating: nil, count: 256)

    /// Fibonacci hashing: the top 8 bits of the address times 2⁶⁴/φ.
    @inline(__always)
    private static func slot(_ address: UnsafeRawPointer) -> Int {
        Int(truncatingIfNeeded: (UInt(bitPattern: address) &* 0x9E37_79B9_7F4A_7C15) >> 56)
    }

    subscript(key: Key, at address: UnsafeRawPointer) -> Value? {
        get {
            guard let entry = slots[Self.slot(address)], entry.key == key else { return nil }
            return entry.value
        }
        set { slots[Self.slot(address)] = newValue.map { (key, $0) } }
    }
}
