/// A whole file's loudness, measured once (a download) and kept.
public struct LoudnessMeasurement: Sendable, Equatable {
    /// Integrated loudness, LUFS.
    public var integrated: Double
    /// The highest true peak, dBTP.
    public var truePeak: Double

    public init(integrated: Double, truePeak: Double) {
        self.integrated = integrated
        self.truePeak = truePeak
    }

    /// What a measurement may be: anything else read back is not one.
    public static let integratedRange = -70.0...6.0
    public static let truePeakRange = -100.0...30.0

    /// nil when either figure is outside its range (or not a number).
    public init?(checking integrated: Double, truePeak: Double) {
        guard Self.integratedRange.contains(integrated), Self.truePeakRange.contains(truePeak) else { return nil }
        self.init(integrated: integrated, truePeak: truePeak)
    }
}

/// The levelling gain: where the loudness measured so far (or the whole
/// file's, when known) says it should be, moving a few dB per second at
/// most, and lowered at once where a stretch would pass the true-peak
/// ceiling (then let back up slowly), so nothing is clipped.
///
/// Times are media seconds; the rate converts them to the seconds heard,
/// so the gain moves no faster at 2× than at 1×.
public struct LoudnessLeveller: Sendable, Equatable {
    /// The highest true peak let through, dBTP.
    public static let ceiling = -1.0
    /// The gain never leaves this range, dB.
    public static let gainRange = -20.0...24.0
    /// How fast the gain moves once settled, dB per second heard.
    public static let slew = 2.0
    /// How fast it moves while the first seconds are measured.
    public static let settlingSlew = 20.0
    /// Media seconds measured before the slow slew applies.
    public static let settling = 5.0
    /// Media seconds measured before the loudness so far is trusted.
    public static let firstReading = 1.0
    /// The most a peak lowers the gain, dB.
    public static let deepestReduction = -40.0
    /// How fast a peak's reduction is let go, dB per second heard.
    public static let release = 40.0

    /// The loudness aimed at, LUFS.
    public var target: Double
    /// The whole file's, when known: the gain goes straight to it.
    public var measurement: LoudnessMeasurement?
    /// The levelling gain, dB (before any peak's reduction).
    public private(set) var gain = 0.0
    /// How far the gain is lowered for peaks now, dB (0 or less).
    public private(set) var reduction = 0.0
    /// Whether the gain has reached a measurement yet.
    private var settled = false

    public init(target: Double, measurement: LoudnessMeasurement? = nil) {
        self.target = target
        self.measurement = measurement
    }

    /// The gain (dB) for a stretch of `duration` media seconds heard at
    /// `rate`, once the meter has read it: `measured` its loudness so far
    /// over `seconds`, `peak` the stretch's own true peak.
    public mutating func next(duration: Double, rate: Double, measured: Double?, seconds: Double, peak: Double?) -> Double {
        let heard = duration / max(rate, 0.1)
        if let desired = desiredGain(measured: measured, seconds: seconds) {
            if measurement != nil && !settled {
                gain = desired
            } else {
                let step = (seconds < Self.settling ? Self.settlingSlew : Self.slew) * heard
                gain += min(max(desired - gain, -step), step)
            }
            settled = true
        }
        reduction = min(0, reduction + Self.release * heard)
        // A peak no number (a hostile file's infinities) lowers nothing; none lowers more than `deepestReduction`.
        if let peak, peak.isFinite, peak + gain + reduction > Self.ceiling {
            reduction = max(Self.ceiling - peak - gain, Self.deepestReduction)
        }
        return gain + reduction
    }

    /// A new stream: nothing measured yet. The gain starts from the
    /// measurement, if one is known, else from none at all: the last show's
    /// gain could be far too loud for this one.
    public mutating func restart() {
        settled = false
        gain = 0
        reduction = 0
    }

    private func desiredGain(measured: Double?, seconds: Double) -> Double? {
        let loudness: Double
        if let measurement {
            loudness = measurement.integrated
        } else if seconds >= Self.firstReading, let measured {
            loudness = measured
        } else {
            return nil
        }
        return min(max(target - loudness, Self.gainRange.lowerBound), Self.gainRange.upperBound)
    }
}
