import Foundation
import ShelfStore

/// Times as every command shows them: UTC, the proleptic Gregorian calendar, integer
/// milliseconds, so a stored time is shown exactly as stored (`1500-01-01T00:00:00.268Z`, not
/// the Julian date and a millisecond lost through floating point that `Date` formatting gives).
enum UTCTime {
    /// `2026-11-22T14:37:14.123Z`; years outside 0…9999 as `+010000` or `-000001`.
    static func iso(milliseconds: Int64) -> String {
        let (date, time) = parts(milliseconds)
        return date + "T" + time.clock + "." + pad(time.milliseconds, 3) + "Z"
    }

    /// `2026-11-22 14:37`, for tables read by people.
    static func minutes(milliseconds: Int64) -> String {
        let (date, time) = parts(milliseconds)
        return date + " " + String(time.clock.prefix(5))
    }

    static func iso(_ date: Date) -> String { iso(milliseconds: milliseconds(date)) }

    static func minutes(_ date: Date) -> String { minutes(milliseconds: milliseconds(date)) }

    /// The whole milliseconds since 1970 a `Date` made from stored milliseconds stands for.
    static func milliseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded())
    }

    private static func parts(_ milliseconds: Int64) -> (String, (clock: String, milliseconds: Int64)) {
        let day = milliseconds >= 0 ? milliseconds / 86_400_000 : (milliseconds - 86_399_999) / 86_400_000
        let rest = milliseconds - day * 86_400_000
        let civil = CivilDate(daysSince1970: Int(day))
        let year =
            (0...9999).contains(civil.year)
            ? pad(Int64(civil.year), 4) : (civil.year < 0 ? "-" : "+") + pad(Int64(abs(civil.year)), 6)
        let date = year + "-" + pad(Int64(civil.month), 2) + "-" + pad(Int64(civil.day), 2)
        let clock = pad(rest / 3_600_000, 2) + ":" + pad(rest / 60_000 % 60, 2) + ":" + pad(rest / 1000 % 60, 2)
        return (date, (clock, rest % 1000))
    }

    private static func pad(_ value: Int64, _ digits: Int) -> String {
        let text = String(value)
        return text.count >= digits ? text : String(repeating: "0", count: digits - text.count) + text
    }
}
