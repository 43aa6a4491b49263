/// A set of byte offsets kept as sorted, disjoint, non-adjacent ranges
/// `[start, end)`: which bytes of a file are written, reserved or durable.
public struct ByteRanges: Sendable, Equatable {
    public private(set) var ranges: [Range<Int64>] = []

    public init() {}

    /// Builds the set from ranges in any order, overlapping or not.
    public init(_ ranges: some Sequence<Range<Int64>>) {
        for range in ranges { insert(range) }
    }

    /// How many bytes the set holds.
    public var count: Int64 { ranges.reduce(0) { $0 + ($1.upperBound - $1.lowerBound) } }

    public var isEmpty: Bool { ranges.isEmpty }

    /// Adds `range`, merging it with what it overlaps or touches.
    public mutating func insert(_ range: Range<Int64>) {
        guard !range.isEmpty else { return }
        var lower = range.lowerBound, upper = range.upperBound
        // The first range that ends at or after `lower` (it may touch or overlap).
        let first = firstIndex { $0.upperBound >= lower }
        var last = first
        while last < ranges.count, ranges[last].lowerBound <= upper {
            lower = min(lower, ranges[last].lowerBound)
            upper = max(upper, ranges[last].upperBound)
            last += 1
        }
        ranges.replaceSubrange(first..<last, with: [lower..<upper])
    }

    /// Takes `range` out of the set.
    public mutating func remove(_ range: Range<Int64>) {
        guard !range.isEmpty else { return }
        var result: [Range<Int64>] = []
        result.reserveCapacity(ranges.count + 1)
        for existing in ranges {
            if existing.upperBound <= range.lowerBound || existing.lowerBound >= range.upperBound {
                result.append(existing)
                continue
            }
            if existing.lowerBound < range.lowerBound { result.append(existing.lowerBound..<range.lowerBound) }
            if existing.upperBound > range.upperBound { result.append(range.upperBound..<existing.upperBound) }
        }
        ranges = result
    }

    /// Whether every byte of `range` is in the set.
    public func contains(_ range: Range<Int64>) -> Bool {
        guard !range.isEmpty else { return true }
        let index = firstIndex { $0.upperBound > range.lowerBound }
        return index < ranges.count && ranges[index].lowerBound <= range.lowerBound && ranges[index].upperBound >= range.upperBound
    }

    /// Whether `offset` is in the set.
    public func contains(_ offset: Int64) -> Bool { contains(offset..<offset + 1) }

    /// The parts of `range` that are not in the set, in order.
    public func gaps(in range: Range<Int64>) -> [Range<Int64>] {
        var gaps: [Range<Int64>] = []
        var cursor = range.lowerBound
        var index = firstIndex { $0.upperBound > cursor }
        while cursor < range.upperBound {
            guard index < ranges.count, ranges[index].lowerBound < range.upperBound else {
                gaps.append(cursor..<range.upperBound)
                break
            }
            if ranges[index].lowerBound > cursor { gaps.append(cursor..<ranges[index].lowerBound) }
            cursor = max(cursor, ranges[index].upperBound)
            index += 1
        }
        return gaps
    }

    /// How many bytes from `offset` on are in the set without a break.
    public func contiguousCount(from offset: Int64) -> Int64 {
        let index = firstIndex { $0.upperBound > offset }
        guard index < ranges.count, ranges[index].lowerBound <= offset else { return 0 }
        return ranges[index].upperBound - offset
    }

    public func union(_ other: ByteRanges) -> ByteRanges {
        var result = self
        for range in other.ranges { result.insert(range) }
        return result
    }

    /// The index of the first range satisfying `predicate`, which must be
    /// false then true along the ranges (binary search).
    private func firstIndex(where predicate: (Range<Int64>) -> Bool) -> Int {
        var low = 0, high = ranges.count
        while low < high {
            let middle = (low + high) / 2
            if predicate(ranges[middle]) { high = middle } else { low = middle + 1 }
        }
        return low
    }
}
