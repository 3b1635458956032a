internal import ShelfStore

/// ISO 8601 times as imports read them and exports write them, without `Calendar` or
/// `DateFormatter`: both are far too slow for a million rows.
///
/// Exports write UTC with milliseconds, `2026-11-22T14:37:14.123Z`. Imports read
/// `YYYY-MM-DDTHH:MM[:SS[.fraction]]` with a zone (`Z`, `±HH:MM`, `±HHMM` or `±HH`); a space
/// may stand for the `T`. Digits past milliseconds are dropped. The calendar is the proleptic
/// Gregorian one at every date (no Julian days before 1582), and times are integer
/// milliseconds throughout (no floating point), so a time read and written again is the same.
///
/// A time is accepted only when its UTC value lies in `range`, years 0000 to 9999: exactly the
/// times `format` writes in the four-digit form `parse` reads back.
enum Timestamp {
    /// 0000-01-01T00:00:00.000Z to 9999-12-31T23:59:59.999Z, in milliseconds since 1970.
    static let range: ClosedRange<Int64> = -62_167_219_200_000...253_402_300_799_999

    /// Writes `milliseconds` since 1970 as UTC text: the one formatter every output shares.
    /// Within `range` (every time an import accepts) the 24 bytes are made on the stack and
    /// appended at once, as `TimeFormat.appendISO8601` writes them (a test compares the two);
    /// other times go through `TimeFormat`. `quoted` puts it in double quotes (JSON).
    @inline(__always)
    static func format(_ milliseconds: Int64, into bytes: inout [UInt8], quoted: Bool = false) {
        guard range.contains(milliseconds) else {
            if quoted { bytes.append(0x22) }
            TimeFormat.appendISO8601(millisecondsSince1970: milliseconds, to: &bytes)
            if quoted { bytes.append(0x22) }
            return
        }
        let fields = TimeFormat.Fields(millisecondsSince1970: milliseconds)
        // "YYYY-MM-DDTHH:MM:SS.mmmZ", from offset 1; quotes at 0 and 25.
        var text: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        withUnsafeMutableBytes(of: &text) { buffer in
            // Two digits of 0...99.
            @inline(__always) func pair(_ value: Int, at offset: Int) {
                buffer[offset + 1] = UInt8(truncatingIfNeeded: 0x30 + value / 10)
                buffer[offset + 2] = UInt8(truncatingIfNeeded: 0x30 + value % 10)
            }
            @inline(__always) func put(_ byte: UInt8, at offset: Int) { buffer[offset + 1] = byte }
            buffer[0] = 0x22
            pair(fields.year / 100, at: 0)
            pair(fields.year % 100, at: 2)
            put(UInt8(ascii: "-"), at: 4)
            pair(fields.month, at: 5)
            put(UInt8(ascii: "-"), at: 7)
            pair(fields.day, at: 8)
            put(UInt8(ascii: "T"), at: 10)
            pair(fields.hour, at: 11)
            put(UInt8(ascii: ":"), at: 13)
            pair(fields.minute, at: 14)
            put(UInt8(ascii: ":"), at: 16)
            pair(fields.second, at: 17)
            put(UInt8(ascii: "."), at: 19)
            put(UInt8(truncatingIfNeeded: 0x30 + fields.millisecond / 100), at: 20)
            pair(fields.millisecond % 100, at: 21)
            put(UInt8(ascii: "Z"), at: 23)
            buffer[25] = 0x22
            let all = UnsafeRawBufferPointer(buffer)
            bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: quoted ? all[0..<26] : all[1..<25]))
        }
    }

    /// `milliseconds` as UTC text.
    static func string(_ milliseconds: Int64) -> String {
        var bytes: [UInt8] = []
        format(milliseconds, into: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Milliseconds since 1970 of an ISO 8601 time with a zone.
    /// - Throws: `FieldProblem` saying what is wrong and how to write it, for text that is
    ///   not such a time or a time whose UTC value is outside `range`.
    static func parse(_ text: String) throws(FieldProblem) -> Int64 {
        var text = text
        let result = text.withUTF8 { bytes in Result { () throws(FieldProblem) in try parse(bytes) } }
        return try result.get()
    }

    private static let shape =
        "write it as ISO 8601 with a time zone, e.g. 2026-11-22T14:37:14Z or 2026-11-22T15:37:14.250+01:00"

    private static func parse(_ bytes: UnsafeBufferPointer<UInt8>) throws(FieldProblem) -> Int64 {
        var index = 0
        func number(_ count: Int) throws(FieldProblem) -> Int64 {
            guard index + count <= bytes.count else { throw FieldProblem("it is cut short; \(shape)") }
            var value: Int64 = 0
            for _ in 0..<count {
                let byte = bytes[index]
                guard (0x30...0x39).contains(byte) else { throw FieldProblem("it is not a date and time; \(shape)") }
                value = value * 10 + Int64(byte - 0x30)
                index += 1
            }
            return value
        }
        func expect(_ byte: UInt8) throws(FieldProblem) {
            guard index < bytes.count, bytes[index] == byte else {
                throw FieldProblem("it is not a date and time; \(shape)")
            }
            index += 1
        }
        let year = try number(4)
        try expect(UInt8(ascii: "-"))
        let month = try number(2)
        try expect(UInt8(ascii: "-"))
        let day = try number(2)
        guard index < bytes.count else { throw FieldProblem("it has no time nor time zone; \(shape)") }
        guard bytes[index] == UInt8(ascii: "T") || bytes[index] == UInt8(ascii: "t") || bytes[index] == 0x20 else {
            throw FieldProblem("it is not a date and time; \(shape)")
        }
        index += 1
        let hour = try number(2)
        try expect(UInt8(ascii: ":"))
        let minute = try number(2)
        var second: Int64 = 0
        var millisecond: Int64 = 0
        if index < bytes.count, bytes[index] == UInt8(ascii: ":") {
            index += 1
            second = try number(2)
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") || bytes[index] == UInt8(ascii: ",") {
                index += 1
                var digits = 0
                while index < bytes.count, (0x30...0x39).contains(bytes[index]) {
                    if digits < 3 { millisecond = millisecond * 10 + Int64(bytes[index] - 0x30) }
                    digits += 1
                    index += 1
                }
                guard digits > 0 else { throw FieldProblem("a decimal point without digits; \(shape)") }
                for _ in digits..<max(digits, 3) { millisecond *= 10 }
            }
        }
        guard (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year) else {
            throw FieldProblem("there is no such day; \(shape)")
        }
        guard hour < 24, minute < 60, second < 60 else { throw FieldProblem("there is no such time of day; \(shape)") }
        guard index < bytes.count else {
            throw FieldProblem("it has no time zone; add Z for UTC or an offset like +01:00")
        }
        var offsetMinutes: Int64 = 0
        switch bytes[index] {
        case UInt8(ascii: "Z"), UInt8(ascii: "z"):
            index += 1
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            let sign: Int64 = bytes[index] == UInt8(ascii: "-") ? -1 : 1
            index += 1
            let hours = try number(2)
            var minutes: Int64 = 0
            if index < bytes.count {
                if bytes[index] == UInt8(ascii: ":") { index += 1 }
                minutes = try number(2)
            }
            guard hours < 24, minutes < 60 else { throw FieldProblem("the time zone offset is out of range; \(shape)") }
            offsetMinutes = sign * (hours * 60 + minutes)
        default:
            throw FieldProblem("it has no time zone, or text after the time; \(shape)")
        }
        guard index == bytes.count else { throw FieldProblem("text after the time zone; \(shape)") }
        let days = Int64(CivilDate.daysSince1970(year: Int(year), month: Int(month), day: Int(day)))
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offsetMinutes * 60
        let milliseconds = seconds * 1000 + millisecond
        guard range.contains(milliseconds) else {
            throw FieldProblem(
                "in UTC it is \(string(milliseconds)), outside the years 0000 to 9999 that an export can write "
                    + "and an import read back; write a time from \(string(range.lowerBound)) "
                    + "to \(string(range.upperBound)) in UTC")
        }
        return milliseconds
    }

    private static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}
