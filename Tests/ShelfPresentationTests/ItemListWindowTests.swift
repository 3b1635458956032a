import Foundation
import ShelfStore
import Testing

@testable import ShelfPresentation

/// A list held as plain values that answers the window's requests the way a store would:
/// items 1…n, item k created k seconds after a fixed date; `status: .open` keeps the even ones.
private struct Items {
    var all: [Item]

    init(_ numbers: some Sequence<Int>) {
        all = numbers.map(makeItem)
    }

    /// The items matching `query`, in its order (created, either direction).
    func matching(_ query: ItemQuery) -> [Item] {
        let kept = all.filter { query.status == nil || $0.status == query.status }
        let ascending = kept.sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
        return query.sortDirection == .ascending ? ascending : ascending.reversed()
    }

    /// True when `item` comes before `cursor` in `query`'s order.
    private func precedes(_ item: Item, _ cursor: ItemCursor, _ query: ItemQuery) -> Bool {
        let key = (item.createdAt, item.id)
        let other = (cursor.createdAt, cursor.id)
        return query.sortDirection == .ascending ? key < other : key > other
    }

    func before(_ cursor: ItemCursor?, limit: Int, _ query: ItemQuery) -> [Item] {
        let list = matching(query)
        let end = cursor.map { cursor in list.firstIndex { !precedes($0, cursor, query) } ?? list.count } ?? list.count
        return Array(list[max(0, end - limit)..<end])
    }

    func after(_ cursor: ItemCursor?, limit: Int, _ query: ItemQuery) -> [Item] {
        let list = matching(query)
        let start =
            cursor.map { cursor in
                list.firstIndex { !precedes($0, cursor, query) && $0.id != cursor.id } ?? list.count
            } ?? 0
        return Array(list[start..<min(list.count, start + limit)])
    }

    /// Answers `request` and feeds the result back; returns the next request.
    func answer(_ request: ItemListRequest, to window: inout ItemListWindow) -> ItemListRequest? {
        switch request.read {
        case .before(let cursor, let limit):
            return window.receive(before: before(cursor, limit: limit, request.query), for: request.number)
        case .page(let anchor, let limit):
            return window.receive(page: after(anchor, limit: limit, request.query), for: request.number)
        case .live(let anchor, let limit):
            let found = after(anchor, limit: limit, request.query)
            let total = matching(request.query).count
            return window.receive(live: ItemWindow(items: found, totalCount: total), for: request.number)
        }
    }

    /// Answers `request` and every read that follows, until the window is settled.
    func settle(_ request: ItemListRequest?, _ window: inout ItemListWindow) {
        var next = request
        var steps = 0
        while let request = next, steps < 100 {
            next = answer(request, to: &window)
            steps += 1
        }
    }

    /// The live window `window` follows, as the store would publish it now.
    func live(for window: ItemListWindow) -> ItemWindow {
        ItemWindow(
            items: after(window.anchor, limit: window.size, window.query), totalCount: matching(window.query).count)
    }
}

private func makeItem(_ n: Int) -> Item {
    let created = Date(timeIntervalSince1970: 1_700_000_000 + Double(n))
    return Item(
        id: Item.ID(rawValue: Int64(n)), userID: User.ID(rawValue: 1), title: "Item \(n)", notes: nil,
        status: n % 2 == 0 ? .open : .done, priority: 0, createdAt: created, updatedAt: created, version: 1)
}

/// `#require` for values made by mutating calls (the macro cannot take those inline).
private func unwrap<T>(_ value: T?, sourceLocation: SourceLocation = #_sourceLocation) throws -> T {
    try #require(value, sourceLocation: sourceLocation)
}

private func titles(_ window: ItemListWindow) -> [String] { window.items.map(\.title) }

private func selectedTitle(_ window: ItemListWindow) -> String? { window.selectedItem?.title }

/// A window of `size` over `list`, loaded and settled, with `rows` rows on screen.
private func loaded(_ list: Items, size: Int, rows: Int = 5, query: ItemQuery = ItemQuery()) -> ItemListWindow {
    var window = ItemListWindow(query: query, size: size)
    window.setViewport(rows: rows)
    list.settle(window.load(), &window)
    return window
}

@Suite("ItemListWindow")
struct ItemListWindowTests {
    @Test func theFirstPageShowsBeforeTheCount() throws {
        let list = Items(1...30)
        var window = ItemListWindow(query: ItemQuery(), size: 10)
        let load = window.load()
        #expect(load.read == .page(after: nil, limit: 10))
        #expect(!window.hasWindow)
        let live = try unwrap(list.answer(load, to: &window))
        // Rows and selection are there; the count is pending; nothing shown is stale.
        #expect(titles(window) == (21...30).reversed().map { "Item \($0)" })
        #expect(window.selectedIndex == 0)
        #expect(window.totalCount == nil)
        #expect(window.offset == 0)
        #expect(!window.isRefreshing)
        #expect(live.read == .live(after: nil, limit: 10))
        #expect(list.answer(live, to: &window) == nil)
        #expect(window.totalCount == 30)
    }

    @Test func movingInsideTheWindowReadsNothingAndNearItsEdgeReadsAhead() throws {
        let list = Items(1...100)
        var window = loaded(list, size: 20)
        for _ in 0..<10 { #expect(window.move(by: 1) == nil) }
        #expect(selectedTitle(window) == "Item 90")
        // Within a quarter window of the end (with more beyond), the window moves.
        let ahead = try unwrap(window.move(by: 5))
        guard case .page(let anchor?, 20) = ahead.read else {
            Issue.record("expected a page after an anchor, got \(ahead.read)")
            return
        }
        #expect(anchor.id == Item.ID(rawValue: 96))
        list.settle(ahead, &window)
        #expect(selectedTitle(window) == "Item 85")
        #expect(window.offset == 5)
        #expect(window.totalCount == 100)
    }

    @Test func movesWhileTheWindowIsReadAreKept() throws {
        let list = Items(1...100)
        var window = loaded(list, size: 20)
        for _ in 0..<14 { _ = window.move(by: 1) }
        // Row 15 is within a quarter window of the end: the window is read again around it...
        let ahead = try unwrap(window.move(by: 1))
        #expect(selectedTitle(window) == "Item 85")
        // ...while the selection goes on moving inside the rows in hand.
        #expect(window.move(by: -3) == nil)
        #expect(selectedTitle(window) == "Item 88")
        list.settle(ahead, &window)
        #expect(selectedTitle(window) == "Item 88")
        #expect(window.offset == 5)
    }

    @Test func aMoveBackIntoTheWindowWinsOverTheReadBeyondIt() throws {
        let list = Items(1...100)
        var window = loaded(list, size: 20)
        // Page down past the window's end, then back up into it before the read comes back.
        let beyond = try unwrap(window.move(by: 30))
        let back = try unwrap(window.move(by: -28))
        #expect(back.read == .live(after: nil, limit: 20))  // the rows in hand, followed again
        #expect(selectedTitle(window) == "Item 98")
        list.settle(beyond, &window)
        #expect(selectedTitle(window) == "Item 98")
        list.settle(back, &window)
        #expect(selectedTitle(window) == "Item 98")
        #expect(window.totalCount == 100)
        // The same, backwards: up past the window's start, then down into it.
        list.settle(window.jumpToBottom(), &window)
        let before = try unwrap(window.move(by: -30))
        let down = try unwrap(window.move(by: 29))
        #expect(selectedTitle(window) == "Item 2")
        list.settle(before, &window)
        #expect(selectedTitle(window) == "Item 2")
        list.settle(down, &window)
        #expect(selectedTitle(window) == "Item 2")
        #expect(window.offset == 80)
    }

    @Test func aJumpFarBeyondTheWindowLandsOnItsTarget() {
        let list = Items(1...500)
        var window = loaded(list, size: 40)
        list.settle(window.move(by: 150), &window)
        #expect(selectedTitle(window) == "Item 350")
        #expect(window.offset.map { $0 + (window.selectedIndex ?? 0) } == 150)
        // Moves made while a read is in flight count from where the selection is going.
        let first = window.move(by: 100)
        let second = window.move(by: 10)
        #expect(first != nil && second != nil)
        list.settle(second, &window)
        #expect(selectedTitle(window) == "Item 240")
        // And back up past the window's start.
        list.settle(window.move(by: -200), &window)
        #expect(selectedTitle(window) == "Item 440")
        list.settle(window.move(by: -1_000), &window)
        #expect(selectedTitle(window) == "Item 500")
        #expect(window.offset == 0)
    }

    @Test func movesMadeWhileAJumpIsReadCountFromItsEnd() throws {
        let list = Items(1...100)
        var window = loaded(list, size: 20)
        list.settle(window.jumpToBottom(), &window)
        let top = try unwrap(window.jumpToTop())
        #expect(window.move(by: 1) == nil)
        #expect(window.move(by: 1) == nil)
        list.settle(top, &window)
        #expect(selectedTitle(window) == "Item 98")
        #expect(window.selectedLine == 2)
        let bottom = try unwrap(window.jumpToBottom())
        #expect(window.move(by: -3) == nil)
        list.settle(bottom, &window)
        #expect(selectedTitle(window) == "Item 4")
    }

    @Test func jumpingToTheBottomReadsTheLastItems() throws {
        let list = Items(1...100)
        var window = loaded(list, size: 20)
        let tail = try unwrap(window.jumpToBottom())
        #expect(tail.read == .before(nil, limit: 21))
        list.settle(tail, &window)
        #expect(selectedTitle(window) == "Item 1")
        #expect(window.offset == 80)
        #expect(window.topIndex == 15)
        #expect(window.selectedLine == 4)
        #expect(window.jumpToBottom() == nil)
    }

    @Test func aNewOrderKeepsTheSelectedItemOnItsLine() throws {
        let list = Items(1...100)
        var window = loaded(list, size: 20, rows: 8)
        for _ in 0..<4 { _ = window.move(by: 1) }
        #expect(selectedTitle(window) == "Item 96")
        #expect(window.selectedLine == 4)
        // Oldest first: a window around item 96, read from just before it.
        let around = try unwrap(window.change(to: ItemQuery(sortDirection: .ascending)))
        #expect(around.read == .before(ItemCursor(makeItem(96)), limit: 11))
        let page = try unwrap(list.answer(around, to: &window))
        guard case .page(let anchor?, 20) = page.read else {
            Issue.record("expected a page from just before the item, got \(page.read)")
            return
        }
        #expect(anchor.id == Item.ID(rawValue: 85))
        #expect(window.totalCount == nil)
        #expect(window.isRefreshing)
        let live = try unwrap(list.answer(page, to: &window))
        #expect(selectedTitle(window) == "Item 96")
        #expect(window.selectedLine == 4)
        #expect(window.items[window.topIndex].title == "Item 92")
        // The same items reversed: its position is known (95 of 100); the count comes live.
        #expect(window.offset == 85)
        #expect(window.totalCount == nil)
        #expect(!window.isRefreshing)
        #expect(list.answer(live, to: &window) == nil)
        #expect(window.totalCount == 100)
    }

    @Test func aWindowInAnotherOrderLearnsItsPositionAtEitherEnd() throws {
        let list = Items(1...100)
        var window = loaded(list, size: 20, rows: 8)
        list.settle(window.jumpToBottom(), &window)
        _ = window.move(by: -3)
        #expect(selectedTitle(window) == "Item 4")
        let around = try unwrap(window.change(to: ItemQuery(status: .open)))
        let page = try unwrap(list.answer(around, to: &window))
        let live = try unwrap(list.answer(page, to: &window))
        #expect(selectedTitle(window) == "Item 4")
        // Read from just before it, the window's place in the new order is not known yet...
        #expect(window.offset == nil)
        _ = list.answer(live, to: &window)
        // ...but the window ends the list: with the count, its position is.
        #expect(window.totalCount == 50)
        #expect(window.offset.map { $0 + (window.selectedIndex ?? 0) } == 48)
    }

    @Test func nearTheStartTheRowMovesUpAndThePositionIsKnown() throws {
        let list = Items(1...100)
        var window = loaded(list, size: 20, rows: 8)
        for _ in 0..<6 { _ = window.move(by: 1) }
        #expect(selectedTitle(window) == "Item 94")
        list.settle(window.change(to: ItemQuery(status: .open)), &window)
        #expect(selectedTitle(window) == "Item 94")
        // Only 3 open items come before it: it moves up to line 3.
        #expect(window.selectedLine == 3)
        #expect(window.topIndex == 0)
        #expect(window.offset == 0)
        #expect(window.totalCount == 50)
    }

    @Test func aSelectedItemThatNoLongerMatchesGivesWayToTheNextOne() {
        let list = Items(1...20)
        var window = loaded(list, size: 10)
        _ = window.move(by: 3)
        #expect(selectedTitle(window) == "Item 17")
        // Item 17 is done: "open" drops it; item 16 now sits where it would be.
        list.settle(window.change(to: ItemQuery(status: .open)), &window)
        #expect(selectedTitle(window) == "Item 16")
        // At the end of the list, with nothing after it, the one before is selected.
        var last = loaded(list, size: 10, query: ItemQuery(sortDirection: .ascending))
        _ = last.move(by: -100)
        list.settle(last.jumpToBottom(), &last)
        #expect(selectedTitle(last) == "Item 20")
        list.settle(last.change(to: ItemQuery(status: .done, sortDirection: .ascending)), &last)
        #expect(selectedTitle(last) == "Item 19")
    }

    @Test func aResultOfAnOlderQueryIsNeverShown() throws {
        let list = Items(1...30)
        var window = loaded(list, size: 10)
        let first = try unwrap(window.change(to: ItemQuery(status: .open)))
        let second = try unwrap(window.change(to: ItemQuery(status: .done)))
        #expect(list.answer(first, to: &window) == nil)
        #expect(window.query.status == .done)
        // The old live window (with the old count) arrives late: dropped.
        let oldLive = ItemWindow(items: list.matching(ItemQuery()), totalCount: 30)
        #expect(window.receive(live: oldLive, for: first.number) == nil)
        #expect(window.totalCount == nil)
        list.settle(second, &window)
        #expect(window.items.allSatisfy { $0.status == .done })
        #expect(window.totalCount == 15)
    }

    @Test func deletingTheSelectedItemSelectsTheOneAfterIt() {
        var list = Items(1...10)
        var window = loaded(list, size: 10)
        _ = window.move(by: 2)
        #expect(selectedTitle(window) == "Item 8")
        list.all.removeAll { $0.title == "Item 8" }
        #expect(window.receive(live: list.live(for: window), for: window.requestNumber) == nil)
        #expect(selectedTitle(window) == "Item 7")
        #expect(window.selectedIndex == 2)
        // The last one: the one before it.
        list.settle(window.jumpToBottom(), &window)
        list.all.removeAll { $0.title == "Item 1" }
        _ = window.receive(live: list.live(for: window), for: window.requestNumber)
        #expect(selectedTitle(window) == "Item 2")
    }

    @Test func itemsArrivingAboveTheViewportAreCountedNotScrolledTo() {
        var list = Items(1...20)
        var window = loaded(list, size: 20, rows: 5)
        #expect(window.topIndex == 0)
        // Three items arrive at the top: the viewport stays on item 20.
        list.all += [21, 22, 23].map(makeItem)
        _ = window.receive(live: list.live(for: window), for: window.requestNumber)
        #expect(selectedTitle(window) == "Item 20")
        #expect(window.selectedLine == 0)
        #expect(window.topIndex == 3)
        #expect(window.newAboveCount == 3)
        // One more while away: four.
        list.all.append(makeItem(24))
        _ = window.receive(live: list.live(for: window), for: window.requestNumber)
        #expect(window.newAboveCount == 4)
        // Moving up shows them one by one: each seen one leaves the count.
        _ = window.move(by: -1)
        #expect(window.topIndex == 3)
        #expect(window.newAboveCount == 3)
        // Jumping to the top clears it.
        #expect(window.jumpToTop() == nil)
        #expect(window.topIndex == 0)
        #expect(window.newAboveCount == 0)
        #expect(selectedTitle(window) == "Item 24")
    }

    @Test func itemsArrivingInsideTheViewportAreNotNew() {
        var list = Items(1...20)
        var window = loaded(list, size: 20, rows: 5)
        _ = window.move(by: 3)
        // Item 18.5 cannot exist; an item between the top row and the selection, by date.
        var between = makeItem(100)
        between = Item(
            id: between.id, userID: between.userID, title: "Between", notes: nil, status: .open, priority: 0,
            createdAt: makeItem(18).createdAt.addingTimeInterval(0.5), updatedAt: between.updatedAt, version: 1)
        list.all.append(between)
        _ = window.receive(live: list.live(for: window), for: window.requestNumber)
        #expect(selectedTitle(window) == "Item 17")
        #expect(window.selectedLine == 3)
        // The selected row stays on its line; the row pushed out above was seen already.
        #expect(window.topIndex == 1)
        #expect(window.newAboveCount == 0)
    }

    @Test func aShortListShowsArrivalsInsteadOfCountingThem() {
        var list = Items(1...3)
        var window = loaded(list, size: 20, rows: 10)
        list.all.append(makeItem(4))
        _ = window.receive(live: list.live(for: window), for: window.requestNumber)
        #expect(window.topIndex == 0)
        #expect(window.newAboveCount == 0)
        #expect(selectedTitle(window) == "Item 3")
        #expect(window.selectedLine == 1)
    }

    @Test func anAwaitedItemIsSelectedWhenItArrives() {
        var list = Items(1...5)
        var window = loaded(list, size: 10)
        window.select(id: Item.ID(rawValue: 50))
        #expect(selectedTitle(window) == "Item 5")
        list.all.append(makeItem(50))
        _ = window.receive(live: list.live(for: window), for: window.requestNumber)
        #expect(selectedTitle(window) == "Item 50")
        // The item selected before is still in the window: it was not lost, and must not be
        // followed (which took the selection back from a just-saved item: a browser test's flake).
        #expect(window.lostSelection == nil)
    }

    @Test func anEmptyResultIsKnownAtOnce() throws {
        var window = ItemListWindow(query: ItemQuery(status: .open, text: "nothing"), size: 10)
        let load = window.load()
        _ = window.receive(page: [], for: load.number)
        #expect(window.hasWindow)
        #expect(window.items.isEmpty)
        #expect(window.selectedIndex == nil)
        #expect(window.totalCount == 0)
    }

    @Test func sortFieldsCycleThroughAllCasesInTheirUsualDirection() {
        var field = ItemQuery.SortField.created
        var seen: [ItemQuery.SortField] = []
        for _ in ItemQuery.SortField.allCases {
            field = ItemListSorting.field(after: field)
            seen.append(field)
        }
        #expect(Set(seen) == Set(ItemQuery.SortField.allCases))
        #expect(seen.last == .created)
        #expect(ItemListSorting.defaultDirection(for: .title) == .ascending)
        #expect(ItemListSorting.defaultDirection(for: .updated) == .descending)
        #expect(ItemListSorting.reversed(.ascending) == .descending)
    }
}
