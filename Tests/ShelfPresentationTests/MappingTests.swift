import Foundation
import ShelfStore
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

    @Test func listStateSelectsAndClamps() {
        let items = (1...5).map { item(Int64($0)) }
        let state = ItemListMapping.state(
            items: items, totalCount: 50, windowOffset: 10, selectedIndex: 9, query: ItemQuery(), owners: [:],
            now: Self.now, unfilteredCount: nil)
        let content = try! #require(state.value)
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

    @Test func detailStateForADeletedItem() {
        let id = Item.ID(rawValue: 4)
        #expect(ItemDetailViewModel.state(item: nil, users: [], id: id) == .empty("Item #4 was deleted."))
        let content = try! #require(ItemDetailViewModel.state(item: item(4, priority: 3), users: [], id: id).value)
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
        ([.title: String(repeating: "x", count: 201), .priority: "0", .owner: "a@x.io"], [.title]),
        ([.title: String(repeating: "x", count: 200), .priority: "", .owner: "a@x.io"], []),
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
