import Foundation
import ShelfStore
import Synchronization
import Testing

@testable import ShelfPresentation

@Suite("Formatting and mapping")
struct MappingTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)  // 2027-01-15 08:00 UTC

    static let relativeCases: [(Double, String)] = [
        (0, "just now"), (59, "just now"), (-30, "just now"), (60, "1m ago"), (3_599, "59m ago"),
        (3_600, "1h ago"), (86_399, "23h ago"), (86_400, "1d ago"), (518_400, "6d ago"),
        (864_000, "Jan 5"), (34_560_000, "2025-12-11"), (-259_200, "Jan 18"),
    ]

    @Test("relative dates", arguments: relativeCases)
    func relative(_ secondsAgo: Double, _ expected: String) {
        #expect(Formatting.relative(Self.now.addingTimeInterval(-secondsAgo), now: Self.now) == expected)
    }

    /// A title or name named inside a question is one line, cut with "…", so the question's
    /// end shows: a title of eight lines showed "Delete “line1 / line2 / line3" in its dialog
    /// and no "? u undoes it."; a name of 10,000 characters hid "This cannot be undone."
    @Test func namesInsideQuestionsAreOneShortLine() {
        #expect(Formatting.inline("line1\nline2\r\nline3\rline4\u{2028}5") == "line1␊line2␊line3␍line4␊5")
        #expect(Formatting.inline("short") == "short")
        let long = String(repeating: "名", count: 10_000)
        #expect(Formatting.inline(long, limit: 60) == String(repeating: "名", count: 60) + "…")
        let user = User(id: User.ID(rawValue: 1), name: long, email: "x\ny@example.com", createdAt: Self.now)
        let question = UserListViewModel.removalQuestion(UserSummary(user: user, itemCount: 3, openCount: 1))
        #expect(question.count < 200, "\(question.count) characters")
        #expect(question.hasSuffix("… (x␊y@example.com) and their 3 items? This cannot be undone."), "\(question)")
        #expect(!question.contains("\n"))
    }

    @Test func civilDatesAgreeWithTheCalendar() {
        var seconds = -2_208_988_800.0  // 1900-01-01
        while seconds < 7_258_118_400 {  // 2200-01-01
            let date = Date(timeIntervalSince1970: seconds)
            let parts = Calendar.utc.dateComponents([.year, .month, .day], from: date)
            let civil = CivilDate(date)
            #expect([civil.year, civil.month, civil.day] == [parts.year, parts.month, parts.day], "\(date)")
            let time = Calendar.utc.dateComponents([.hour, .minute], from: date)
            let expected = String(
                format: "%04d-%02d-%02d %02d:%02d UTC", parts.year!, parts.month!, parts.day!, time.hour!, time.minute!)
            #expect(Formatting.timestamp(date) == expected)
            if civil.year != parts.year { break }
            seconds += 86_400 * 13.37
        }
    }

    @Test func marksAndCounts() {
        #expect(Formatting.priorityMark(0) == "")
        #expect(Formatting.priorityMark(3) == "!!!")
        #expect(Formatting.priorityMark(9) == "!!!")
        #expect(Formatting.doneMark(.done) == "✓")
        #expect(Formatting.doneMark(.open) == " ")
        #expect(Formatting.count(1_234_567) == "1,234,567")
        #expect(Formatting.count(999) == "999")
        #expect(Formatting.count(-1000) == "-1,000")
        #expect(Formatting.items(1) == "1 item")
        #expect(Formatting.items(12_000) == "12,000 items")
        #expect(Formatting.timestamp(Self.now) == "2027-01-15 08:00 UTC")
    }

    @Test func queryDescriptions() {
        #expect(Formatting.describe(ItemQuery(), ownerName: nil) == "newest first")
        let query = ItemQuery(
            owner: User.ID(rawValue: 1), status: .open, text: " moth ", sortField: .title, sortDirection: .ascending)
        #expect(Formatting.describe(query, ownerName: "Ada") == "“moth” · open · Ada · title A–Z")
    }

    private func item(_ n: Int64, status: Item.Status = .open, priority: Int = 0, owner: Int64 = 1) -> Item {
        Item(
            id: Item.ID(rawValue: n), userID: User.ID(rawValue: owner), title: "Item \(n)", notes: nil, status: status,
            priority: priority, createdAt: Self.now, updatedAt: Self.now.addingTimeInterval(-300), version: 1)
    }

    @Test func rowsAreFormatted() {
        let owners = [
            User.ID(rawValue: 1): User(id: User.ID(rawValue: 1), name: "Ada", email: "a@x.io", createdAt: Self.now)
        ]
        let row = ItemRowViewModel(item(7, status: .done, priority: 2), owners: owners, now: Self.now)
        #expect(row.title == "Item 7")
        #expect(row.doneMark == "✓")
        #expect(row.priorityMark == "!!")
        #expect(row.owner == "Ada")
        #expect(row.updated == "5m ago")
        #expect(ItemRowViewModel(item(8, owner: 9), owners: owners, now: Self.now).owner == "unknown owner")
    }

    @Test func cachedRowsKeepTheirRelativeDateCurrent() {
        // The item was updated at 08:00:30; the clock reads 08:05:10, then 08:05:40 (the same
        // minute of the clock, but the row's "4m ago" has become "5m ago").
        final class Clock: Sendable {
            let date = Mutex(Date(timeIntervalSince1970: 1_800_000_310))
        }
        let clock = Clock()
        var formatter = ItemRowFormatter(now: { clock.date.withLock { $0 } })
        let item = Item(
            id: Item.ID(rawValue: 1), userID: User.ID(rawValue: 1), title: "Moth", notes: nil, status: .open,
            priority: 0, createdAt: Self.now, updatedAt: Date(timeIntervalSince1970: 1_800_000_030), version: 1)
        #expect(formatter.rows(for: [item], owners: [:]).map(\.updated) == ["4m ago"])
        clock.date.withLock { $0 = Date(timeIntervalSince1970: 1_800_000_340) }
        #expect(formatter.rows(for: [item], owners: [:]).map(\.updated) == ["5m ago"])
    }

    @Test func listStateSelectsAndClamps() throws {
        let items = (1...5).map { item(Int64($0)) }
        let state = ItemListMapping.state(
            items: items, totalCount: 50, windowOffset: 10, selectedIndex: 9, query: ItemQuery(), owners: [:],
            now: Self.now, unfilteredCount: nil)
        let content = try #require(state.value)
        #expect(content.selectedIndex == 4)
        #expect(content.selectedID == Item.ID(rawValue: 5))
        #expect(content.selectedPosition == 14)
        #expect(content.totalCount == 50)
        #expect(content.queryDescription == "newest first")
    }

    @Test func emptyTellsWhetherFiltersHideItems() {
        func empty(_ query: ItemQuery, unfiltered: Int?) -> String? {
            ItemListMapping.state(
                items: [], totalCount: 0, windowOffset: 0, selectedIndex: nil, query: query, owners: [:], now: Self.now,
                unfilteredCount: unfiltered
            ).emptyMessage
        }
        #expect(empty(ItemQuery(), unfiltered: 0) == "No items yet.")
        #expect(empty(ItemQuery(text: "  "), unfiltered: 0) == "No items yet.")
        #expect(
            empty(ItemQuery(status: .done, text: "moth"), unfiltered: 1_200)
                == "No items match “moth” · done. Clear the search and filters to see all 1,200 items.")
        #expect(
            empty(ItemQuery(text: "moth"), unfiltered: 0)
                == "No items match “moth”, and there are no items at all yet.")
    }

    @Test func detailStateForADeletedItem() throws {
        let id = Item.ID(rawValue: 4)
        #expect(ItemDetailViewModel.state(item: nil, users: [], id: id) == .empty("Item #4 was deleted."))
        let content = try #require(ItemDetailViewModel.state(item: item(4, priority: 3), users: [], id: id).value)
        #expect(content.priority == "high (3)")
        #expect(content.ownerName == "unknown owner")
        #expect(content.notes == nil)
    }

    @Test func userListState() {
        #expect(UserListViewModel.state([]).emptyMessage?.hasPrefix("No users yet.") == true)
        let user = User(id: User.ID(rawValue: 1), name: "Ada", email: "a@x.io", createdAt: Self.now)
        let rows = UserListViewModel.state([UserSummary(user: user, itemCount: 1, openCount: 0)]).value
        #expect(rows?.first?.items == "1 item")
        #expect(rows?.first?.open == "0 open")
    }

    static let editorCases: [([ItemEditorField: String], [ItemEditorField])] = [
        ([.title: "", .priority: "0", .owner: "a@x.io"], [.title]),
        ([.title: "  \n", .priority: "0", .owner: "a@x.io"], [.title]),
        ([.title: String(repeating: "x", count: 501), .priority: "0", .owner: "a@x.io"], [.title]),
        ([.title: String(repeating: "x", count: 500), .priority: "", .owner: "a@x.io"], []),
        ([.title: "ok", .priority: "4", .owner: "a@x.io"], [.priority]),
        ([.title: "ok", .priority: "-1", .owner: "a@x.io"], [.priority]),
        ([.title: "ok", .priority: "two", .owner: "a@x.io"], [.priority]),
        ([.title: "ok", .priority: "3", .owner: ""], [.owner]),
        ([.title: "ok", .priority: "3", .owner: "ada"], [.owner]),
        ([.title: "ok", .priority: " 2 ", .owner: " a@x.io "], []),
    ]

    @Test("editor validation", arguments: editorCases)
    func editorValidation(_ values: [ItemEditorField: String], _ invalid: [ItemEditorField]) {
        let errors = ItemEditorViewModel.validate(values)
        #expect(Set(errors.keys) == Set(invalid))
        #expect(errors.values.allSatisfy { $0.hasSuffix(".") })
    }
}

extension Calendar {
    /// The Gregorian calendar in UTC, to check the arithmetic dates against.
    static let utc: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }()
}

/// `TimeFormat` (ShelfStore) is the one formatter behind every time Shelf shows; it is tested
/// here, with the screens' formatting built on it.
@Suite("Time format")
struct TimeFormatTests {
    /// Milliseconds since 1970 of a UTC time, by plain counting (independent of the
    /// civil-date arithmetic under test): whole years from 1970, then months, then the rest.
    static func reference(_ year: Int, _ month: Int, _ day: Int, _ ms: Int = 0) -> Int64 {
        func floorDiv(_ a: Int, _ b: Int) -> Int { a >= 0 ? a / b : -((-a + b - 1) / b) }
        func leapsBefore(_ y: Int) -> Int {  // leap years in [0, y)
            let n = y - 1
            return floorDiv(n, 4) - floorDiv(n, 100) + floorDiv(n, 400) + 1
        }
        let isLeap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
        let monthDays = [31, isLeap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        let days =
            (year - 1970) * 365 + leapsBefore(year) - leapsBefore(1970) + monthDays.prefix(month - 1).reduce(0, +)
            + day - 1
        return Int64(days) * 86_400_000 + Int64(ms)
    }

    static func date(_ milliseconds: Int64) -> Date {
        Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }

    @Test func theYear1500IsGregorianAndKeepsItsMilliseconds() {
        let stored = Self.reference(1500, 1, 1, 268)
        #expect(TimeFormat.iso8601(Self.date(stored)) == "1500-01-01T00:00:00.268Z")
        #expect(TimeFormat.iso8601(millisecondsSince1970: stored) == "1500-01-01T00:00:00.268Z")
        #expect(TimeFormat.milliseconds(since1970: Self.date(stored)) == stored)
        #expect(TimeFormat.minute(Self.date(stored)) == "1500-01-01 00:00 UTC")
        #expect(Formatting.timestamp(Self.date(stored)) == "1500-01-01 00:00 UTC")
    }

    static let fixed: [(Int64, String)] = [
        (0, "1970-01-01T00:00:00.000Z"),
        (-1, "1969-12-31T23:59:59.999Z"),
        (reference(1582, 10, 10, 1), "1582-10-10T00:00:00.001Z"),  // a day the Julian switch skips
        (reference(1, 1, 1), "0001-01-01T00:00:00.000Z"),
        (reference(0, 2, 29, 5), "0000-02-29T00:00:00.005Z"),  // 1 BC was a leap year
        (reference(-1, 12, 31, 999), "-000001-12-31T00:00:00.999Z"),
        (reference(-4713, 11, 24), "-004713-11-24T00:00:00.000Z"),
        (reference(9999, 12, 31) + 86_399_999, "9999-12-31T23:59:59.999Z"),
        (reference(10000, 1, 1), "+010000-01-01T00:00:00.000Z"),
        (reference(2026, 11, 22, 51_434_123), "2026-11-22T14:17:14.123Z"),
    ]

    @Test("fixed times", arguments: fixed)
    func fixedTimes(_ milliseconds: Int64, _ expected: String) {
        #expect(TimeFormat.iso8601(millisecondsSince1970: milliseconds) == expected)
        #expect(TimeFormat.iso8601(Self.date(milliseconds)) == expected)
    }

    @Test func aDateAHairBeforeMidnightIsTheStoredMillisecond() {
        // A `Date` made from stored milliseconds may sit below them; it must not read as the
        // day (or minute) before.
        let hair = Date(timeIntervalSince1970: -0.000_000_1)
        #expect(TimeFormat.iso8601(hair) == "1970-01-01T00:00:00.000Z")
        #expect(Formatting.timestamp(hair) == "1970-01-01 00:00 UTC")
        #expect(CivilDate(hair) == CivilDate(daysSince1970: 0))
    }

    @Test func farDatesAreDatedWithASignedYear() {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(Formatting.relative(Self.date(Self.reference(-5, 3, 4)), now: now) == "-000005-03-04")
        #expect(Formatting.relative(Self.date(Self.reference(1500, 1, 1, 268)), now: now) == "1500-01-01")
        #expect(TimeFormat.day(Self.date(Self.reference(12_345, 6, 7))) == "+012345-06-07")
    }

    @Test func randomTimesAgreeWithCounting() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            let year = Int.random(in: -20_000...20_000, using: &generator)
            let month = Int.random(in: 1...12, using: &generator)
            let day = Int.random(in: 1...28, using: &generator)
            let ms = Int.random(in: 0..<86_400_000, using: &generator)
            let stored = Self.reference(year, month, day, ms)
            let fields = TimeFormat.Fields(millisecondsSince1970: stored)
            let expected = [year, month, day, ms / 3_600_000, ms / 60_000 % 60, ms / 1000 % 60, ms % 1000]
            let got = [
                fields.year, fields.month, fields.day, fields.hour, fields.minute, fields.second, fields.millisecond,
            ]
            #expect(got == expected, "\(stored)")
            // Through a floating-point `Date` the stored millisecond comes back (years within
            // ±20,000 need 14 significant digits of the 15 a Double holds).
            #expect(TimeFormat.Fields(Self.date(stored)) == fields, "\(stored)")
            let text = TimeFormat.iso8601(millisecondsSince1970: stored)
            let sign = year < 0 ? "-" : year > 9999 ? "+" : ""
            let yearText = sign.isEmpty ? String(format: "%04d", year) : sign + String(format: "%06d", abs(year))
            #expect(
                text
                    == yearText
                    + String(
                        format: "-%02d-%02dT%02d:%02d:%02d.%03dZ", month, day, expected[3], expected[4], expected[5],
                        expected[6]))
            if got != expected { break }
        }
    }

    @Test func everyDayOfFourHundredYearsAgreesWithCounting() {
        // One full Gregorian cycle across the 1582 switch, day by day.
        var stored = Self.reference(1400, 1, 1, 43_200_000)
        for year in 1400..<1800 {
            for month in 1...12 {
                let isLeap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
                let days = [31, isLeap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
                for day in 1...days {
                    let fields = TimeFormat.Fields(Self.date(stored))
                    guard [fields.year, fields.month, fields.day] == [year, month, day] else {
                        Issue.record("\(stored): \(fields) is not \(year)-\(month)-\(day)")
                        return
                    }
                    stored += 86_400_000
                }
            }
        }
    }
}
