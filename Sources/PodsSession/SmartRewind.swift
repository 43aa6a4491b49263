import Foundation

/// How far playing again after a pause goes back, so the listener hears
/// the thread they left: nothing after less than a minute, 3 s after a
/// minute, 10 s after an hour, 20 s after a day, 30 s after a week (the
/// steps AntennaPod's listeners know, capped at 30 s).
package enum SmartRewind {
    package static func seconds(afterPause pause: TimeInterval) -> Double {
        guard pause.isFinite else { return 0 }
        let day: TimeInterval = 86400
        return if pause >= 7 * day { 30 } else if pause >= day { 20 } else if pause >= 3600 { 10 } else if pause >= 60 { 3 } else { 0 }
    }
}
