import Foundation

/// Whether a reader's time grows in proportion to its input: the reader is
/// timed on its worst input at one size and at twice that size (the best of
/// several runs each, so a busy machine's pauses do not count), and the ratio
/// is what a test holds to a bound. Quadratic work shows as about 4×, linear
/// as about 2×.
public enum LinearTime {
    /// The seconds `work` takes on `input(size)`, at its best of `runs`.
    public static func seconds<Input>(runs: Int = 5, _ input: Input, _ work: (Input) -> Void) -> Double {
        var best = Double.infinity
        for _ in 0..<max(runs, 1) {
            let start = DispatchTime.now().uptimeNanoseconds
            work(input)
            best = min(best, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
        }
        return best
    }

    /// How much longer `work` takes on the input made at `2 × size` than at
    /// `size`, and the larger input's seconds. Measured up to `attempts`
    /// times while the ratio is over `linear` (the machine's other work can
    /// land on either half of one measurement; a quadratic reader is over it
    /// every time): the smallest ratio found.
    public static func doublingRatio<Input>(size: Int, runs: Int = 5, attempts: Int = 1, linear: Double = 2.6,
                                            make: (Int) -> Input, _ work: (Input) -> Void) -> (ratio: Double, seconds: Double)
    {
        let small = make(size), large = make(size * 2)
        work(small)  // warm: first-touch costs belong to neither
        var best = (ratio: Double.infinity, seconds: 0.0)
        for _ in 0..<max(attempts, 1) {
            let one = seconds(runs: runs, small, work), two = seconds(runs: runs, large, work)
            if two / max(one, 1e-7) < best.ratio { best = (two / max(one, 1e-7), two) }
            if best.ratio < linear { break }
        }
        return best
    }
}
