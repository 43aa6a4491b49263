import Foundation

/// A position as `pods seek` takes it: `+30` and `-15` move relative to
/// where playback is; `90`, `1:30` and `1:02:03` (fractions allowed) go
/// to that point.
public enum PositionArgument: Equatable, Sendable {
    case relative(Duration)
    case absolute(Duration)

    public init?(_ text: String) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard let first = trimmed.first else { return nil }
        if first == "+" || first == "-" {
            guard let amount = Self.parseClock(String(trimmed.dropFirst())) else { return nil }
            self = .relative(first == "-" ? .zero - amount : amount)
        } else {
            guard let amount = Self.parseClock(trimmed) else { return nil }
            self = .absolute(amount)
        }
    }

    /// `S`, `M:S` or `H:M:S`; minutes and seconds after the first field must be below 60.
    static func parseClock(_ text: String) -> Duration? {
        let fields = text.split(separator: ":", omittingEmptySubsequences: false)
        guard (1...3).contains(fields.count) else { return nil }
        var seconds = 0.0
        for (index, field) in fields.enumerated() {
            guard !field.isEmpty, field.allSatisfy({ $0.isNumber || $0 == "." }), let value = Double(field),
                  value.isFinite, value >= 0
            else { return nil }
            let isLast = index == fields.count - 1
            if index > 0, value >= 60 { return nil }
            if !isLast, value != value.rounded() { return nil }
            seconds = seconds * 60 + value
        }
        guard seconds < 1e12 else { return nil }  // beyond any episode, and Int64's reach
        return .milliseconds(Int64((seconds * 1000).rounded()))
    }
}
