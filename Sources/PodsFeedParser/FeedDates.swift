import Foundation

/// Dates as feeds write them: RFC 822 in every lenient form seen in real
/// feeds, and ISO 8601. An unparseable date is nil, never an error.
enum FeedDates {
    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
    /// Named zones seen in feeds, in minutes east of UTC ("GTM" is a common typo of GMT).
    private static let zones: [String: Int] = [
        "gmt": 0, "ut": 0, "utc": 0, "z": 0, "gtm": 0, "wet": 0, "bst": 60, "cet": 60, "cest": 120, "eet": 120,
        "eest": 180, "msk": 180, "ist": 330, "jst": 540, "kst": 540, "aest": 600, "aedt": 660, "nzst": 720, "nzdt": 780,
        "est": -300, "edt": -240, "cst": -360, "cdt": -300, "mst": -420, "mdt": -360, "pst": -480, "pdt": -420,
        "akst": -540, "akdt": -480, "hst": -600, "ast": -240, "adt": -180,
    ]

    /// A zone's offset from UTC is less than a day (the farthest are ±14 h).
    static let maximumOffsetMinutes = 24 * 60

    /// Read in place, without allocating: every episode has a date, and
    /// splitting them into arrays of tokens cost 3 % of a feed's parse.
    static func parse(_ text: String) -> Date? {
        var text = text
        return text.withUTF8 { whole in
            var start = 0, end = whole.count
            while start < end, TextBytes.isSpace(whole[start]) { start += 1 }
            while end > start, TextBytes.isSpace(whole[end - 1]) { end -= 1 }
            let bytes = UnsafeBufferPointer(rebasing: whole[start..<end])
            guard let first = bytes.first else { return nil }
            if isDigit(first), bytes.count >= 10, bytes[4] == UInt8(ascii: "-") { return iso8601(bytes) }
            return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: bytes.count) { lowered in
                for index in bytes.indices {
                    let byte = bytes[index]
                    lowered[index] = byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
                }
                return rfc822(UnsafeBufferPointer(lowered))
            }
        }
    }

    /// `2024-05-01T08:00:00Z`, as the JSON contract prints dates.
    static func iso8601(_ date: Date) -> String {
        iso8601(unixSeconds: Int64(date.timeIntervalSince1970.rounded(.down)))
    }

    static func iso8601(unixSeconds seconds: Int64) -> String {
        let days = seconds >= 0 ? seconds / 86400 : (seconds - 86399) / 86400
        let secondOfDay = seconds - days * 86400
        let (year, month, day) = civil(fromDays: days)
        let second = Int(secondOfDay)
        // By hand: String(format:) goes through CoreFoundation, which costs
        // more than the rest of a 50,000-episode listing's dates together.
        // The 20 bytes are written in place (the pieces joined as strings
        // were a twentieth of `pods inspect --json`).
        if (0...9999).contains(year) {
            return String(unsafeUninitializedCapacity: 20) { text in
                var end = 0
                func put(_ number: Int, _ width: Int, then separator: UInt8) {
                    var value = number
                    for place in stride(from: end + width - 1, through: end, by: -1) {
                        text[place] = UInt8(ascii: "0") + UInt8(value % 10)
                        value /= 10
                    }
                    text[end + width] = separator
                    end += width + 1
                }
                put(year, 4, then: UInt8(ascii: "-"))
                put(month, 2, then: UInt8(ascii: "-"))
                put(day, 2, then: UInt8(ascii: "T"))
                put(second / 3600, 2, then: UInt8(ascii: ":"))
                put(second / 60 % 60, 2, then: UInt8(ascii: ":"))
                put(second % 60, 2, then: UInt8(ascii: "Z"))
                return end
            }
        }
        func padded(_ number: Int, _ width: Int) -> String {
            let text = String(number)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(padded(year, 4))-\(padded(month, 2))-\(padded(day, 2))T"
            + "\(padded(second / 3600, 2)):\(padded(second / 60 % 60, 2)):\(padded(second % 60, 2))Z"
    }

    // MARK: - RFC 822

    /// `lowered`: the date with ASCII letters in lower case.
    private static func rfc822(_ lowered: UnsafeBufferPointer<UInt8>) -> Date? {
        var day: Int?, month: Int?, year: Int?, time: (Int, Int, Int)?, offset: Int?
        var index = 0
        while index < lowered.count {
            guard !isSeparator(lowered[index]) else { index += 1; continue }
            let start = index
            while index < lowered.count, !isSeparator(lowered[index]) { index += 1 }
            let token = lowered[start..<index]
            let sign = token[token.startIndex]
            if token.contains(UInt8(ascii: ":")) {
                guard let clock = self.time(token) else { return nil }
                time = clock
            } else if sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-"), token.count >= 3, let value = number(token.dropFirst()) {
                let hhmm = token.count <= 3 ? value * 100 : value
                let minutes = hhmm / 100 * 60 + hhmm % 100
                // No zone is a day or more from UTC: a larger offset is a typo, and read as none.
                if minutes < maximumOffsetMinutes { offset = sign == UInt8(ascii: "-") ? -minutes : minutes }
            } else if let value = number(token) {
                if day == nil, value >= 1, token.count <= 2 { day = value }  // 32 rolls over, as feeds expect
                else if year == nil { year = token.count <= 2 ? (value < 50 ? 2000 + value : 1900 + value) : value }
            } else if month == nil, let index = monthIndex(token) {
                month = index + 1
            } else if let zone = zones[String(decoding: token.lazy.filter { $0 != UInt8(ascii: "(") && $0 != UInt8(ascii: ")") }, as: UTF8.self)] {
                offset = zone
            }
        }
        guard let day, let month, let year, (1000...9999).contains(year) else { return nil }
        let (hour, minute, second) = time ?? (0, 0, 0)
        guard hour < 25, minute < 60, second < 61 else { return nil }
        return date(year: year, month: month, day: day, hour: hour, minute: minute, second: second,
                    offsetMinutes: offset ?? 0)
    }

    @inline(__always)
    private static func isSeparator(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x2C || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    /// `hh:mm` or `hh:mm:ss` (empty fields skipped, more than three read
    /// as three); nil when a field is not a number.
    private static func time(_ token: Slice<UnsafeBufferPointer<UInt8>>) -> (Int, Int, Int)? {
        var fields = (0, 0, 0), count = 0
        var fieldStart = token.startIndex
        for index in token.startIndex...token.endIndex where index == token.endIndex || token[index] == UInt8(ascii: ":") {
            defer { fieldStart = index + 1 }
            guard index > fieldStart else { continue }
            guard let value = number(token[fieldStart..<index]) else { return nil }
            switch count {
            case 0: fields.0 = value
            case 1: fields.1 = value
            case 2: fields.2 = value
            default: break
            }
            count += 1
        }
        return count >= 2 ? fields : nil
    }

    /// `may`, `may.`, `sept.`, `september`: the month's index, else nil.
    private static func monthIndex(_ token: Slice<UnsafeBufferPointer<UInt8>>) -> Int? {
        guard token.count >= 3, let index = months.firstIndex(where: { token.starts(with: $0.utf8) }) else { return nil }
        if token.count == 3 || token.last == UInt8(ascii: ".") { return index }
        let word = String(decoding: token.prefix { $0 != UInt8(ascii: ".") }, as: UTF8.self)
        return fullMonths.contains(word) ? index : nil
    }

    private static let fullMonths: Set<String> = [
        "january", "february", "march", "april", "june", "july", "august", "sept", "september", "october", "november", "december",
    ]

    /// Decimal digits only (at most 9), else nil.
    private static func number(_ digits: some Collection<UInt8>) -> Int? {
        guard !digits.isEmpty, digits.count <= 9 else { return nil }
        var value = 0
        for byte in digits {
            guard isDigit(byte) else { return nil }
            value = value * 10 + Int(byte - 0x30)
        }
        return value
    }

    @inline(__always)
    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    // MARK: - ISO 8601

    private static func iso8601(_ scalars: UnsafeBufferPointer<UInt8>) -> Date? {
        func number(_ start: Int, _ count: Int) -> Int? {
            guard start + count <= scalars.count else { return nil }
            var value = 0
            for byte in scalars[start..<start + count] {
                guard byte >= 48, byte <= 57 else { return nil }
                value = value * 10 + Int(byte - 48)
            }
            return value
        }
        guard let year = number(0, 4), let month = number(5, 2), let day = number(8, 2),
              (1...12).contains(month), (1...31).contains(day) else { return nil }
        var hour = 0, minute = 0, second = 0, offset = 0
        var index = 10
        if index < scalars.count, scalars[index] == UInt8(ascii: "T") || scalars[index] == UInt8(ascii: " ") {
            guard let h = number(index + 1, 2), let m = number(index + 4, 2) else { return nil }
            hour = h; minute = m
            index += 6
            if index < scalars.count, scalars[index] == UInt8(ascii: ":"), let s = number(index + 1, 2) {
                second = s
                index += 3
            }
            while index < scalars.count, scalars[index] == UInt8(ascii: ".") || (scalars[index] >= 48 && scalars[index] <= 57) {
                index += 1
            }
            if index < scalars.count {
                let sign = scalars[index]
                if sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-"), let oh = number(index + 1, 2) {
                    let om = number(index + 4, 2) ?? number(index + 3, 2) ?? 0
                    let minutes = oh * 60 + om
                    if minutes < maximumOffsetMinutes { offset = sign == UInt8(ascii: "-") ? -minutes : minutes }
                }
            }
        }
        guard hour < 25, minute < 60, second < 61 else { return nil }
        return date(year: year, month: month, day: day, hour: hour, minute: minute, second: second, offsetMinutes: offset)
    }

    // MARK: - Calendar arithmetic (proleptic Gregorian; days past a month's end roll over)

    private static func date(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int, offsetMinutes: Int) -> Date {
        let days = daysFromCivil(year: year, month: month, day: 1) + (day - 1)
        let seconds = days * 86400 + hour * 3600 + minute * 60 + second - offsetMinutes * 60
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146097 + dayOfEra - 719468
    }

    private static func civil(fromDays days: Int64) -> (Int, Int, Int) {
        let z = Int(days) + 719468
        let era = (z >= 0 ? z : z - 146096) / 146097
        let dayOfEra = z - era * 146097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}

/// Dates as every `--json` output prints them.
public enum JSONDate {
    /// `2024-05-01T08:00:00Z` for Unix seconds (UTC).
    public static func string(unixSeconds: Int64) -> String { FeedDates.iso8601(unixSeconds: unixSeconds) }

    /// An ISO 8601 date or time, read as leniently as a feed's: with `Z`, an
    /// offset (`+01:00`, `+0100`) or none (UTC), a fraction (dropped); nil
    /// for anything else.
    public static func date(_ text: String) -> Date? {
        let bytes = Array(TextBytes.trim(text).utf8)
        guard bytes.count >= 10, bytes[4] == UInt8(ascii: "-") else { return nil }
        return FeedDates.parse(text)
    }
}
