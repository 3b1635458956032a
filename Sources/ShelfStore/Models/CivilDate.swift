package import Foundation

/// A day of the proleptic Gregorian calendar in UTC, computed arithmetically (Howard
/// Hinnant's civil-date algorithms): list rows and exports format dates by the thousand, and
/// `Calendar` costs microseconds each. Shared by the layers above the store.
package struct CivilDate: Equatable, Sendable {
    package let year: Int
    package let month: Int
    package let day: Int

    /// The day `days` after 1970-01-01 (before it when negative).
    package init(daysSince1970 days: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
    }

    /// The UTC day of `date`, rounded to the millisecond first (as `TimeFormat` does): a
    /// `Date` made from stored milliseconds can sit a hair before midnight, which must not
    /// read as the day before.
    package init(_ date: Date) {
        let fields = TimeFormat.Fields(date)
        self.init(year: fields.year, month: fields.month, day: fields.day)
    }

    private init(year: Int, month: Int, day: Int) {
        self.year = year
        self.month = month
        self.day = day
    }

    /// Days from 1970-01-01 to `year`-`month`-`day` (days_from_civil).
    package static func daysSince1970(year: Int, month: Int, day: Int) -> Int {
        let year = month <= 2 ? year - 1 : year
        let era = (year >= 0 ? year : year - 399) / 400
        let yearOfEra = year - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
