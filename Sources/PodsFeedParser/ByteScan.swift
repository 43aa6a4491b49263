/// Finding the next byte that matters in long runs of text.
enum ByteScan {
    /// The index of the first byte from `start` that is a control
    /// character (below 0x20) or one of `stops`, sixteen bytes at a time
    /// while none is; `buffer.count` when there is none.
    @inline(__always)
    static func firstControlOrStop(in buffer: UnsafeBufferPointer<UInt8>, from start: Int,
                                   stops: (UInt8, UInt8, UInt8)) -> Int {
        var index = start
        guard let base = buffer.baseAddress else { return buffer.count }
        let space = SIMD16<UInt8>(repeating: 0x20)
        let a = SIMD16<UInt8>(repeating: stops.0), b = SIMD16<UInt8>(repeating: stops.1), c = SIMD16<UInt8>(repeating: stops.2)
        while index + 16 <= buffer.count {
            let bytes = UnsafeRawPointer(base + index).loadUnaligned(as: SIMD16<UInt8>.self)  // safe: index + 16 <= count
            if any((bytes .< space) .| (bytes .== a) .| (bytes .== b) .| (bytes .== c)) { break }
            index += 16
        }
        while index < buffer.count {
            let byte = buffer[index]
            if byte < 0x20 || byte == stops.0 || byte == stops.1 || byte == stops.2 { return index }
            index += 1
        }
        return index
    }
}
