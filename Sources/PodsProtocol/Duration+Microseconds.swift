extension Duration {
    /// Whole microseconds, as MPRIS carries times (`x`); saturates at
    /// `Int64.min`/`.max` instead of overflowing, so no value can trap.
    public var microsecondsSaturating: Int64 {
        let (whole, overflow) = components.seconds.multipliedReportingOverflow(by: 1_000_000)
        if overflow { return self < .zero ? .min : .max }
        return whole.addingReportingOverflow(components.attoseconds / 1_000_000_000_000).partialValue
    }
}
