@testable import PodsSession
import Testing

/// How far smart rewind goes back after a pause of each length.
@Suite struct SmartRewindTests {
    @Test func theStepsOfAPause() {
        let pauses: [Double] = [0, 59, 60, 3599, 3600, 86399, 86400, 7 * 86400, 1e12, .nan, -5]
        #expect(pauses.map(SmartRewind.seconds(afterPause:)) == [0, 0, 3, 3, 10, 10, 20, 30, 30, 0, 0])
    }
}
