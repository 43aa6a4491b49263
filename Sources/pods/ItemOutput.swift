import Foundation
import PodsClient
import PodsDBus
import PodsProtocol

/// Library items on standard output: JSON streamed page by page, or read
/// key by key for the text views.
struct ItemOutput {
    private var json = ItemJSON()
    private var count = 0

    /// Starts a JSON array that pages are appended to.
    static func array() -> ItemOutput {
        var output = ItemOutput()
        output.json.raw("[")
        return output
    }

    /// Appends a page to the array and writes it out.
    mutating func page(_ items: [DBusValue], _ schema: ItemSchema) {
        for item in items {
            if count > 0 { json.raw(",") }
            json.item(item, schema)
            count += 1
        }
        flush()
    }

    /// Appends a page as it came over the bus and writes it out.
    mutating func page(_ page: ItemPage, _ schema: ItemSchema) throws(PlayerClient.Failure) {
        var first = count == 0
        do throws(DBusError) {
            try json.items(page, schema, first: &first)
        } catch {
            throw PlayerClient.Failure("podsd sent a malformed page: \(error.message)")
        }
        count += page.count
        flush()
    }

    /// Ends the array.
    mutating func finish() {
        json.raw("]\n")
        flush()
    }

    /// One item as a JSON object on a line of its own.
    static func print(_ item: DBusValue, _ schema: ItemSchema) {
        var output = ItemOutput()
        output.json.item(item, schema)
        output.json.raw("\n")
        output.flush()
    }

    /// Items as one JSON array.
    static func print(_ items: [DBusValue], _ schema: ItemSchema) {
        var output = ItemOutput.array()
        output.page(items, schema)
        output.finish()
    }

    private mutating func flush() {
        StandardOutput.write(json.bytes)
        json.removeAll()
    }
}

extension DBusValue {
    /// An item's value for `key` (`a{sv}` items only).
    subscript(key: String) -> DBusValue? {
        guard case .dictionary(_, _, let entries) = unwrapped else { return nil }
        return entries.first { $0.key.stringValue == key }?.value.unwrapped
    }

    var int: Int { Int(int64Value ?? 0) }
    var text: String { stringValue ?? "" }
}

extension Optional where Wrapped == DBusValue {
    var int: Int { self?.int ?? 0 }
    var text: String { self?.text ?? "" }
}

/// Standard output for JSON: straight to file descriptor 1 (the JSON paths
/// print nothing through stdio, so nothing interleaves); a closed pipe ends
/// the writing.
enum StandardOutput {
    static func write(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress else { return }
            var offset = 0
            while offset < buffer.count {
                let written = Foundation.write(STDOUT_FILENO, base + offset, buffer.count - offset)
                if written > 0 { offset += written } else if written < 0 && errno == EINTR { continue } else { break }
            }
        }
    }
}
