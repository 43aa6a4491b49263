import PodsCache
import Testing

@Suite(.timeLimit(.minutes(10))) struct ByteRangesTests {
    @Test func insertMergesOverlappingAndTouchingRanges() {
        var set = ByteRanges()
        set.insert(10..<20)
        set.insert(30..<40)
        set.insert(20..<25)  // touches the first
        #expect(set.ranges == [10..<25, 30..<40])
        set.insert(5..<35)  // swallows both
        #expect(set.ranges == [5..<40])
        set.insert(50..<50)  // empty: nothing
        #expect(set.ranges == [5..<40] && set.count == 35)
    }

    @Test func removeSplitsAndGapsAreTheComplement() {
        var set = ByteRanges([0..<100])
        set.remove(10..<20)
        set.remove(90..<200)
        #expect(set.ranges == [0..<10, 20..<90])
        #expect(set.gaps(in: 0..<100) == [10..<20, 90..<100])
        #expect(set.gaps(in: 30..<40) == [])
        #expect(set.contains(20..<90) && !set.contains(5..<15) && set.contains(0))
        #expect(set.contiguousCount(from: 25) == 65 && set.contiguousCount(from: 10) == 0)
    }

    @Test func agreesWithASetOfOffsetsUnderRandomEdits() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            var set = ByteRanges()
            var model = Set<Int64>()
            for _ in 0..<30 {
                let start = Int64.random(in: 0..<200, using: &generator)
                let range = start..<min(200, start + Int64.random(in: 0..<40, using: &generator))
                if Bool.random(using: &generator) {
                    set.insert(range)
                    model.formUnion(range)
                } else {
                    set.remove(range)
                    model.subtract(range)
                }
            }
            #expect(set.count == Int64(model.count))
            #expect(zip(set.ranges, set.ranges.dropFirst()).allSatisfy { $0.upperBound < $1.lowerBound }, "sorted, apart")
            let probe = Int64.random(in: 0..<200, using: &generator)
            #expect(set.contains(probe) == model.contains(probe))
            let gapBytes = set.gaps(in: 0..<200).reduce(0) { $0 + $1.count }
            #expect(gapBytes == 200 - model.count)
        }
    }
}
