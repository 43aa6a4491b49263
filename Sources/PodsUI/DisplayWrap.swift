import PodsTerminal

/// Wrapping for the panes: `DisplayText.wrapped`, every line indented by
/// `indent` columns within `width`.
enum DisplayWrap {
    static func lines(_ text: String, width: Int, indent: Int = 0) -> [String] {
        let clean = DisplayText.sanitized(text)
        guard width > indent + 4 else { return [DisplayText.truncated(clean, to: max(0, width))] }
        let margin = String(repeating: " ", count: indent)
        return DisplayText.wrapped(clean, to: width - indent).map { margin + $0 }
    }
}
