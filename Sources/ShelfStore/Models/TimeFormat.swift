public import Foundation

/// Times as Shelf writes them for people and programs: every output (tables, `show`, JSON,
/// `watch`, the browser, exports) formats through this one type, so a stored time reads the
/// same everywhere.
///
/// The contract:
/// - A `Date` is first turned into whole milliseconds since 1970 by rounding
///   (`milliseconds(since1970:)`): the store keeps integer milliseconds, and a `Date` made from
///   them can sit a fraction of a millisecond off (a `Double` of seconds); rounding gives the
///   stored value back, where truncating would lose a millisecond before 1970.
/// - Dates are in the proleptic Gregorian calendar, in UTC, for every year: no switch to the
///   Julian calendar before 1582 (which Foundation's ISO 8601 styles make), computed with
///   Howard Hinnant's civil-date arithmetic (`CivilDate`), without `Calendar` (fast enough for
///   a million rows, and no time zone data to load).
/// - Years 0...9999 have four digits; other years (negative ones included, year 0 being 1 BC)
///   have a sign and six digits, as ISO 8601's expanded form: `-000001-12-31T00:00:00.000Z`,
///   `+010000-01-01T00:00:00.000Z`.
///
/// Thread-safe: pure functions.
///
/// ```swift
/// TimeFormat.iso8601(item.createdAt)          // "1500-01-01T00:00:00.268Z"
/// TimeFormat.minute(item.updatedAt)           // "2026-11-22 14:05 UTC"
/// TimeFormat.day(item.updatedAt)              // "2026-11-22"
/// ```
public enum TimeFormat {
    /// The fields of a UTC time, proleptic Gregorian.
    public struct Fields: Hashable, Sendable {
        /// The astronomical year: 0 is 1 BC, -1 is 2 BC.
        public let year: Int
        /// 1...12.
        public let month: Int
        /// 1...31.
        public let day: Int
        /// 0...23.
        public let hour: Int
        /// 0...59.
        public let minute: Int
        /// 0...59.
        public let second: Int
        /// 0...999.
        public let millisecond: Int

        /// The fields of `milliseconds` since 1970-01-01T00:00:00Z (before it when negative).
        public init(millisecondsSince1970 milliseconds: Int64) {
            let (days, dayMilliseconds) = TimeFormat.floorDivision(milliseconds, 86_400_000)
            let date = CivilDate(daysSince1970: Int(days))
            let rest = Int(dayMilliseconds)
            year = date.year
            month = date.month
            day = date.day
            hour = rest / 3_600_000
            minute = rest / 60_000 % 60
            second = rest / 1000 % 60
            millisecond = rest % 1000
        }

        /// The fields of `date`, rounded to the millisecond.
        public init(_ date: Date) {
            self.init(millisecondsSince1970: TimeFormat.milliseconds(since1970: date))
        }
    }

    /// Whole milliseconds from 1970-01-01T00:00:00Z to `date`, rounded to the nearest (the
    /// store's precision). Dates beyond ±292 million years, or not finite, are clamped to
    /// `Int64`'s range rather than trapping.
    public static func milliseconds(since1970 date: Date) -> Int64 {
        let value = (date.timeIntervalSince1970 * 1000).rounded()
        guard value.isFinite else { return value > 0 ? .max : .min }
        // 2^63 is exactly representable; Int64 holds up to 2^63 - 1 and down to -2^63.
        if value >= 0x1p63 { return .max }
        if value < -0x1p63 { return .min }
        return Int64(value)
    }

    /// `date` as ISO 8601 in UTC with milliseconds: `2026-11-22T14:37:14.123Z`.
    public static func iso8601(_ date: Date) -> String {
        iso8601(millisecondsSince1970: milliseconds(since1970: date))
    }

    /// `milliseconds` since 1970 as ISO 8601 in UTC with milliseconds, exactly as stored.
    public static func iso8601(millisecondsSince1970 milliseconds: Int64) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(24)
        appendISO8601(millisecondsSince1970: milliseconds, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends `milliseconds` since 1970 as ISO 8601 UTF-8 bytes (`2026-11-22T14:37:14.123Z`),
    /// for writers that build output by the byte (exports). Allocates nothing beyond `bytes`.
    public static func appendISO8601(millisecondsSince1970 milliseconds: Int64, to bytes: inout [UInt8]) {
        let fields = Fields(millisecondsSince1970: milliseconds)
        appendDay(fields, to: &bytes)
        bytes.append(UInt8(ascii: "T"))
        appendDigits(fields.hour, 2, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        appendDigits(fields.minute, 2, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        appendDigits(fields.second, 2, to: &bytes)
        bytes.append(UInt8(ascii: "."))
        appendDigits(fields.millisecond, 3, to: &bytes)
        bytes.append(UInt8(ascii: "Z"))
    }

    /// `date` to the minute, for people: `2026-11-22 14:05 UTC` (seconds dropped, not rounded,
    /// so a time never shows a minute it has not reached). Without `zone`, no ` UTC` (for a
    /// table whose header says it).
    public static func minute(_ date: Date, zone: Bool = true) -> String {
        minute(millisecondsSince1970: milliseconds(since1970: date), zone: zone)
    }

    /// `minute(_:zone:)` for a time in milliseconds since 1970.
    public static func minute(millisecondsSince1970 milliseconds: Int64, zone: Bool = true) -> String {
        let fields = Fields(millisecondsSince1970: milliseconds)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(20)
        appendDay(fields, to: &bytes)
        bytes.append(UInt8(ascii: " "))
        appendDigits(fields.hour, 2, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        appendDigits(fields.minute, 2, to: &bytes)
        if zone { bytes.append(contentsOf: " UTC".utf8) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The UTC day of `date`: `2026-11-22`.
    public static func day(_ date: Date) -> String {
        var bytes: [UInt8] = []
        appendDay(Fields(date), to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    // MARK: - Pieces

    private static func appendDay(_ fields: Fields, to bytes: inout [UInt8]) {
        if fields.year < 0 || fields.year > 9999 {
            // Outside four digits ISO 8601 needs a sign and more digits (the expanded form).
            bytes.append(fields.year < 0 ? UInt8(ascii: "-") : UInt8(ascii: "+"))
            appendDigits(Int(fields.year.magnitude), 6, to: &bytes)
        } else {
            appendDigits(fields.year, 4, to: &bytes)
        }
        bytes.append(UInt8(ascii: "-"))
        appendDigits(fields.month, 2, to: &bytes)
        bytes.append(UInt8(ascii: "-"))
        appendDigits(fields.day, 2, to: &bytes)
    }

    /// `value` (not negative) in at least `count` digits, zero-padded; more when it needs more.
    private static func appendDigits(_ value: Int, _ count: Int, to bytes: inout [UInt8]) {
        var divisor = 1
        var needed = 1
        while needed < count || value / divisor >= 10 {
            divisor *= 10
            needed += 1
        }
        var rest = value
        while divisor > 0 {
            bytes.append(UInt8(truncatingIfNeeded: 0x30 + rest / divisor))
            rest %= divisor
            divisor /= 10
        }
    }

    fileprivate static func floorDivision(_ value: Int64, _ divisor: Int64) -> (Int64, Int64) {
        let quotient = value / divisor
        let remainder = value % divisor
        return remainder < 0 ? (quotient - 1, remainder + divisor) : (quotient, remainder)
    }
}
