import Foundation

/// Pictures in the terminal through the kitty graphics protocol (kitty,
/// WezTerm, Ghostty, Konsole): terminfo has no capability for them, so
/// the escape sequences are written here, by the protocol's specification.
public enum TerminalPictures {
    /// How `pods ui` is told to show pictures (the `ui-artwork` setting).
    public enum Mode: String, Sendable, CaseIterable {
        /// Where the environment says the terminal shows kitty pictures.
        case auto
        /// Always: the listener knows the terminal does.
        case kitty
        case off
    }

    /// Whether pictures are sent in `mode` under `environment`: `auto` sends
    /// them to terminals that say who they are and speak the protocol, and
    /// never through tmux or screen (which would swallow or garble them).
    public static func enabled(_ mode: Mode, environment: [String: String]) -> Bool {
        switch mode {
        case .off: return false
        case .kitty: return true
        case .auto:
            let term = environment["TERM"] ?? ""
            let multiplexed = !(environment["TMUX"] ?? "").isEmpty || !(environment["STY"] ?? "").isEmpty
            if multiplexed || term.hasPrefix("screen") || term.hasPrefix("tmux") { return false }
            if !(environment["KITTY_WINDOW_ID"] ?? "").isEmpty || term.contains("kitty") || term.contains("ghostty") { return true }
            if ["WezTerm", "ghostty"].contains(environment["TERM_PROGRAM"] ?? "") { return true }
            // Konsole speaks the protocol from 22.04 on.
            return Int(environment["KONSOLE_VERSION"] ?? "").map { $0 >= 220400 } ?? false
        }
    }

    /// The bytes that show `png` as picture `id`, scaled into `columns`×`rows`
    /// cells at the cursor, the cursor left where it is; any earlier picture
    /// of that id is replaced. No answers are asked for (they would arrive
    /// as keys).
    public static func show(png: [UInt8], id: UInt32, columns: Int, rows: Int) -> [UInt8] {
        let payload = Array(Data(png).base64EncodedString().utf8)
        var bytes: [UInt8] = []
        var offset = 0
        repeat {
            let chunk = payload[offset..<min(offset + chunkSize, payload.count)]
            offset += chunk.count
            let more = offset < payload.count ? 1 : 0
            let control = offset == chunk.count
                ? "a=T,f=100,t=d,i=\(id),q=2,C=1,c=\(columns),r=\(rows),m=\(more)"
                : "m=\(more)"
            bytes += Array("\u{1B}_G\(control);".utf8) + chunk + Array("\u{1B}\\".utf8)
        } while offset < payload.count
        return bytes
    }

    /// The bytes that take picture `id` off the screen and out of the terminal's memory.
    public static func remove(id: UInt32) -> [UInt8] {
        Array("\u{1B}_Ga=d,d=I,i=\(id),q=2\u{1B}\\".utf8)
    }

    /// The protocol's largest payload per escape sequence.
    static let chunkSize = 4096
}
