/// A time written with units, as settings and the sleep timer take it.
enum UnitTime {
    /// The seconds of `text` made of numbers each followed by one of `units`
    /// (seconds per unit): `1h30m`, `45m`, `90s`; nil for anything else.
    static func seconds(_ text: String, units: [Character: Double]) -> Double? {
        var total = 0.0
        var number = ""
        for character in text {
            if character.isNumber || character == "." {
                number.append(character)
                continue
            }
            guard let value = Double(number), value.isFinite, let unit = units[character] else { return nil }
            total += value * unit
            number = ""
        }
        return number.isEmpty && !text.isEmpty ? total : nil
    }
}
