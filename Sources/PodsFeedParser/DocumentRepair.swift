/// A document's bytes on their way to libxml2: the text encoding repaired
/// first (`UTF8Repair`), then the references (`ReferenceRepair`), which
/// only an ASCII-compatible document gets.
struct DocumentRepair {
    private var encoding = UTF8Repair()
    private var references = ReferenceRepair()

    /// False for UTF-16 and UTF-32 documents (known once bytes came out).
    var isASCIICompatible: Bool { encoding.isASCIICompatible }

    /// The repaired bytes of the next piece of the document (some may be
    /// held back until the next piece or `finish()`).
    mutating func process(_ bytes: some Collection<UInt8>) -> [UInt8] {
        let repaired = encoding.process(bytes)
        return encoding.isASCIICompatible ? references.process(repaired) : repaired
    }

    /// The rest, at the end of the document.
    mutating func finish() -> [UInt8] {
        let repaired = encoding.finish()
        return encoding.isASCIICompatible ? references.process(repaired) + references.finish() : repaired
    }
}
