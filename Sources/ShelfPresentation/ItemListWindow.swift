internal import ShelfStore

/// A read the item list needs, numbered: its result must come back with the same number, and
/// a result whose number is not the latest is stale and dropped.
struct ItemListRequest: Hashable, Sendable {
    /// What to read.
    enum Read: Hashable, Sendable {
        /// Up to `limit` items just before `cursor` (the last ones when nil), in the query's order.
        case before(ItemCursor?, limit: Int)
        /// Up to `limit` items just after `anchor` (from the first when nil), without a count:
        /// the rows to show at once.
        case page(after: ItemCursor?, limit: Int)
        /// The live window after `anchor`: its items and the total count, then every change.
        case live(after: ItemCursor?, limit: Int)
    }

    /// The request's number; results carry it back.
    let number: Int
    /// The query to read with.
    let query: ItemQuery
    /// What to read.
    let read: Read
}

/// The item list's windowing, as a value: what the list holds and shows, and what to read next.
///
/// The list holds a window of at most `size` items out of a result of any length, and shows
/// `viewportRows` of them. Every event (a move, a jump, a new query, a read's result, a live
/// change) is a mutating method; those that need the store return the `ItemListRequest` to
/// run, and the caller feeds its result back with `receive…(_:for:)`. Nothing here reads the
/// store or the clock, so every rule is testable with plain values.
///
/// The rules:
/// - Moving inside the window reads nothing; within a quarter window of an edge with more items
///   beyond it, the window is read again around the selection. A move beyond the window reads
///   the window that holds its target; further moves meanwhile count from that target.
/// - The selection is kept by ID across new queries, window reads and live changes, on the same
///   screen line when the rows above allow it. When a new query drops the selected item, the
///   item that now sits where it would be is selected (the first after its position, else the
///   last before); when a live change removes it, the row that took its place is selected.
/// - A new query reads the items before the selected item and then a page from just before it,
///   so the page shows whether it still matches; the rows show as soon as the page is read,
///   with the count pending (nil) until the live window brings it. A count from an older query
///   is never kept.
/// - Items that arrive above the first shown row (a live change) do not move the viewport:
///   `newAboveCount` counts those still above it, since the viewport was last at the top of
///   the list; reaching the top (`jumpToTop()`) clears it.
struct ItemListWindow {
    /// Where the selection goes in a window being read.
    enum Selection: Hashable {
        /// The item with this ID when the window holds it, else row `fallback` (clamped).
        case item(Item.ID?, fallback: Int)
        /// The last row.
        case last
        /// The item selected when the window arrives (the selection may move while it is read):
        /// its row when the window holds it, else its row shifted by `start`, the new window's
        /// first row counted in the current one.
        case current(start: Int)
    }

    /// Where a window being read starts and what it selects.
    struct Placement: Hashable {
        /// The window's items come after this cursor (from the first when nil).
        var anchor: ItemCursor?
        /// The position of the window's first item in the whole result, when known.
        var offset: Int?
        /// What to select in it.
        var selection: Selection
    }

    /// What the request in flight is for.
    private enum Stage: Hashable {
        /// Items before `item` in a new order, to read a window around it; `position` is its
        /// position in the new order when known (the same items, reversed).
        case around(Item, position: Int?)
        /// Items before the window, to move it back `back` rows so that row `target` (relative
        /// to the current window) is in the middle.
        case back(target: Int, back: Int, keepsSelection: Bool)
        /// The last items, for a jump to the bottom.
        case tail
        /// The rows of a window, shown as soon as they arrive.
        case page(Placement)
        /// The live window, which brings the count and then every change.
        case live(Placement)
    }

    /// Rows held at most (at least 4).
    let size: Int
    /// The query shown, or being read.
    private(set) var query: ItemQuery
    /// The window's items, in the query's order.
    private(set) var items: [Item] = []
    /// False until a first window was read: there is nothing to show yet.
    private(set) var hasWindow = false
    /// How many items match the query; nil while the count of a new query is being read.
    private(set) var totalCount: Int?
    /// The position of `items[0]` in the whole result; nil when unknown (a window read around
    /// the selection in a new order starts at an unknown position until the list's start is read).
    var offset: Int?
    /// The live window's items come after this cursor (from the first when nil).
    private(set) var anchor: ItemCursor?
    /// True when the window holds the last item of the result.
    private(set) var reachesEnd = false
    /// The selected row, or nil when nothing is selected.
    private(set) var selectedIndex: Int?
    /// The selected item's ID.
    private(set) var selectedID: Item.ID?
    /// Rows that fit on screen.
    private(set) var viewportRows = 1
    /// The screen line of the selected row (0 is the first shown row).
    private(set) var selectedLine = 0
    /// The first shown row, an index into `items`.
    private(set) var topIndex = 0
    /// Items that arrived above the first shown row and are still above it.
    private(set) var newAbove: Set<Item.ID> = []
    /// An item to select as soon as a window holds it.
    private var awaitedID: Item.ID?
    /// Items that arrived before the window's first row (above every row held), counted by
    /// how much the number of items before it grew since the viewport left the top.
    var newBeforeWindow = 0

    /// The item that was selected until a live change took it out of the window (it was
    /// changed or deleted, maybe by another process); its neighbour is selected meanwhile.
    /// When it still matches, `follow(moved:)` goes where it is now.
    private(set) var lostSelection: Item.ID?
    /// Where the selection is going (relative to `items`) while the window holding it is read.
    private var pendingTarget: Int?
    /// Moves made while a jump to the top or the bottom is read: applied when it arrives.
    private var movesAfterJump: Int?
    /// The request in flight, or nil when the window is live and settled.
    private var stage: Stage?
    /// The number of the latest request: only its results (and its live window's) count.
    private(set) var requestNumber = 0

    /// A list of `query` holding `size` rows at most; nothing is held until `load()`'s read
    /// comes back.
    init(query: ItemQuery, size: Int) {
        self.query = query
        self.size = max(4, size)
    }

    // MARK: - What to show

    /// True while rows are shown that a read in flight will replace.
    var isRefreshing: Bool {
        guard hasWindow, let stage else { return false }
        if case .live = stage { return false }
        return true
    }

    /// How many items arrived above the first shown row, for "↑ N new".
    var newAboveCount: Int { newAbove.count + newBeforeWindow }

    /// The selected item.
    var selectedItem: Item? { selectedIndex.map { items[$0] } }

    // MARK: - Events

    /// Reads the list from its first item and selects it.
    mutating func load() -> ItemListRequest {
        awaitedID = nil
        selectedLine = 0
        movesAfterJump = 0
        return page(Placement(anchor: nil, offset: 0, selection: .item(nil, fallback: 0)))
    }

    /// Shows `newQuery`: a window around the selected item in the new order, else from the first.
    /// The count is unknown until the new window's live read brings it. Nil when nothing changes.
    mutating func change(to newQuery: ItemQuery) -> ItemListRequest? {
        guard newQuery != query else { return nil }
        let oldQuery = query
        let oldTotal = totalCount
        query = newQuery
        totalCount = nil
        pendingTarget = nil
        movesAfterJump = nil
        newAbove.removeAll()
        newBeforeWindow = 0
        guard let item = selectedItem, let selectedIndex else {
            return page(Placement(anchor: nil, offset: 0, selection: .item(nil, fallback: 0)))
        }
        // The same items in the other direction: the item's position is known (ties are
        // ordered by ID in the sort's direction, so the reversed order is exactly reversed).
        var position: Int?
        var reversed = oldQuery
        reversed.sortDirection = newQuery.sortDirection
        if reversed == newQuery, oldQuery.sortDirection != newQuery.sortDirection, let offset, let oldTotal {
            position = oldTotal - 1 - (offset + selectedIndex)
        }
        return request(.before(ItemCursor(item), limit: size / 2 + 1), stage: .around(item, position: position))
    }

    /// Rows that fit on screen; keeps the selected line when it still fits.
    mutating func setViewport(rows: Int) {
        viewportRows = max(1, rows)
        selectedLine = min(selectedLine, viewportRows - 1)
        place()
    }

    /// Moves the selection by `count` rows (negative: up), clamped to the list. Nil when the
    /// window in hand holds the target and need not move.
    mutating func move(by count: Int) -> ItemListRequest? {
        guard hasWindow, !items.isEmpty, let selected = selectedIndex else { return nil }
        if let moves = movesAfterJump {
            movesAfterJump = moves + count
            return nil
        }
        let current = pendingTarget ?? selected
        var target = current + count
        if target < 0, anchor == nil { target = 0 }
        if target >= items.count, reachesEnd { target = items.count - 1 }
        selectedLine = max(0, min(selectedLine + target - current, viewportRows - 1))
        guard target >= 0, target < items.count else {
            pendingTarget = target
            return recenter(on: target, keepsSelection: false)
        }
        // Back into the rows in hand while a read toward a target beyond them is in flight:
        // that read is moot, and the rows in hand must be followed live again.
        let abandonsRead = pendingTarget != nil
        select(index: target)
        if let follow = followSelection() { return follow }
        guard abandonsRead else { return nil }
        return request(
            .live(after: anchor, limit: size),
            stage: .live(Placement(anchor: anchor, offset: offset, selection: .current(start: 0))))
    }

    /// Selects the first item, showing it on the first line.
    mutating func jumpToTop() -> ItemListRequest? {
        selectedLine = 0
        guard hasWindow, anchor == nil, !items.isEmpty else { return load() }
        select(index: 0)
        return nil
    }

    /// Selects the last item, showing it on the last line.
    mutating func jumpToBottom() -> ItemListRequest? {
        guard hasWindow, !items.isEmpty else { return nil }
        selectedLine = viewportRows - 1
        if reachesEnd {
            select(index: items.count - 1)
            return nil
        }
        movesAfterJump = 0
        return request(.before(nil, limit: size + 1), stage: .tail)
    }

    /// Selects the item with `id` now when the window holds it, else as soon as a window or a
    /// live change brings it in (unless the selection is moved meanwhile).
    mutating func select(id: Item.ID) {
        guard let index = items.firstIndex(where: { $0.id == id }) else {
            awaitedID = id
            return
        }
        selectedLine = max(0, min(index - topIndex, viewportRows - 1))
        select(index: index)
    }

    /// Reads the current window again (after a failure), keeping the selection.
    mutating func retry() -> ItemListRequest {
        movesAfterJump = nil
        return page(
            Placement(anchor: anchor, offset: offset, selection: .item(selectedID, fallback: selectedIndex ?? 0)))
    }

    // MARK: - Results

    /// The items a `.before` request read. Returns the next read, or nil when the result is stale.
    mutating func receive(before found: [Item], for number: Int) -> ItemListRequest? {
        guard number == requestNumber, let stage else { return nil }
        switch stage {
        case .around(let item, let position):
            // A page from just before the item shows whether it still matches, and what now
            // sits where it would be.
            let half = size / 2
            let anchored = found.count > half
            let placement = Placement(
                anchor: anchored ? ItemCursor(found[0]) : nil, offset: anchored ? position.map { $0 - half } : 0,
                selection: .item(item.id, fallback: anchored ? half : found.count))
            return page(placement)
        case .back(let target, let back, let keepsSelection):
            let anchored = found.count > back
            let start = anchored ? -back : -found.count
            let placement = Placement(
                anchor: anchored ? ItemCursor(found[0]) : nil, offset: anchored ? offset.map { $0 - back } : 0,
                selection: keepsSelection ? .current(start: start) : .item(nil, fallback: max(0, target - start)))
            return page(placement)
        case .tail:
            let anchored = found.count > size
            let placement = Placement(
                anchor: anchored ? ItemCursor(found[0]) : nil,
                offset: anchored ? totalCount.map { max(0, $0 - size) } : 0, selection: .last)
            return page(placement)
        case .page, .live:
            return nil
        }
    }

    /// The items a `.page` request read: they show at once. Returns the next read (the live
    /// window, or the next step of a long jump), or nil when the result is stale.
    mutating func receive(page found: [Item], for number: Int) -> ItemListRequest? {
        guard number == requestNumber, case .page(let placement) = stage else { return nil }
        if found.isEmpty, placement.anchor != nil {
            // Everything after the anchor went away meanwhile: read from the start.
            return page(Placement(anchor: nil, offset: 0, selection: placement.selection))
        }
        install(found, placement: placement)
        if found.isEmpty { totalCount = 0 }
        if let moves = movesAfterJump {
            movesAfterJump = nil
            if moves != 0, let next = move(by: moves) { return next }
        }
        // A jump further than one window: this window is a step on the way; go on from it.
        if case .item(nil, let row) = placement.selection, row >= found.count, !reachesEnd, !found.isEmpty {
            pendingTarget = row
            return recenter(on: row, keepsSelection: false)
        }
        return request(.live(after: placement.anchor, limit: size), stage: .live(placement))
    }

    /// A result of the live window that request `number` opened: its first result brings the
    /// count, later ones are changes. Returns a read when the window must be read again.
    mutating func receive(live window: ItemWindow, for number: Int) -> ItemListRequest? {
        guard number == requestNumber else { return nil }
        switch stage {
        case .live: stage = nil
        case nil: break
        default: return nil
        }
        if window.items.isEmpty, window.totalCount > 0, anchor != nil {
            // Everything from the anchor on went away: read the list again from its start.
            totalCount = window.totalCount
            return page(Placement(anchor: nil, offset: 0, selection: .item(selectedID, fallback: 0)))
        }
        let before = Set(items.map(\.id))
        let previous = selectedID
        items = window.items
        totalCount = window.totalCount
        updateReachesEnd()
        resolve(.item(selectedID, fallback: selectedIndex ?? 0))
        place(arrived: items.map(\.id).filter { !before.contains($0) })
        // Lost: the change moved it out of the window (not: an awaited item took the selection).
        lostSelection = previous.flatMap { previous in items.contains { $0.id == previous } ? nil : previous }
        return nil
    }

    /// The item selected until a live change moved it out of the window, as it is now
    /// (`lostSelection`'s item, read again): shows the window around its new place and
    /// selects it there, on its screen line, as a query change does; when it no longer
    /// matches, the nearest item is selected. Nil when the selection moved on meanwhile.
    mutating func follow(moved item: Item) -> ItemListRequest? {
        guard lostSelection == item.id, stage == nil else { return nil }
        lostSelection = nil
        pendingTarget = nil
        movesAfterJump = nil
        return request(.before(ItemCursor(item), limit: size / 2 + 1), stage: .around(item, position: nil))
    }

    /// Request `number` failed: nothing is in flight any more (the failure is on screen).
    mutating func fail(_ number: Int) {
        guard number == requestNumber else { return }
        stage = nil
        movesAfterJump = nil
    }

    // MARK: - Steps

    private mutating func request(_ read: ItemListRequest.Read, stage: Stage) -> ItemListRequest {
        requestNumber += 1
        self.stage = stage
        return ItemListRequest(number: requestNumber, query: query, read: read)
    }

    private mutating func page(_ placement: Placement) -> ItemListRequest {
        request(.page(after: placement.anchor, limit: size), stage: .page(placement))
    }

    /// Shows `found` as the window placed by `placement`.
    private mutating func install(_ found: [Item], placement: Placement) {
        items = found
        hasWindow = true
        anchor = placement.anchor
        offset = placement.offset
        updateReachesEnd()
        pendingTarget = nil
        resolve(placement.selection)
        place()
    }

    /// A window shorter than a full one ends the list; so does one whose position and count
    /// say it holds the last item.
    /// A window that ends the list also tells its position, once the count is known.
    mutating func updateReachesEnd() {
        if items.count < size {
            reachesEnd = true
            if offset == nil, let totalCount { offset = max(0, totalCount - items.count) }
        } else if let offset, let totalCount {
            reachesEnd = offset + items.count >= totalCount
        } else {
            reachesEnd = false
        }
    }

    /// Selects per `selection` in `items`.
    private mutating func resolve(_ selection: Selection) {
        guard !items.isEmpty else {
            selectedIndex = nil
            selectedID = nil
            return
        }
        let index: Int
        switch selection {
        case .last:
            index = items.count - 1
        case .current(let start):
            resolve(.item(selectedID, fallback: (selectedIndex ?? 0) - start))
            return
        case .item(let id, let fallback):
            if let awaitedID, let found = items.firstIndex(where: { $0.id == awaitedID }) {
                index = found
                self.awaitedID = nil
            } else if let id, let found = items.firstIndex(where: { $0.id == id }) {
                index = found
            } else {
                index = max(0, min(fallback, items.count - 1))
            }
        }
        selectedIndex = index
        selectedID = items[index].id
    }

    private mutating func select(index: Int) {
        lostSelection = nil
        guard !items.isEmpty else { return }
        let index = max(0, min(index, items.count - 1))
        pendingTarget = nil
        awaitedID = nil
        selectedIndex = index
        selectedID = items[index].id
        place()
    }

    /// Puts the selected row on `selectedLine` when the rows above and below allow it, and
    /// counts the `arrived` items that landed above the first shown row.
    private mutating func place(arrived: [Item.ID] = []) {
        guard let selected = selectedIndex else {
            topIndex = 0
            newAbove.removeAll()
            newBeforeWindow = 0
            return
        }
        let lastTop = max(0, items.count - viewportRows)
        topIndex = max(0, min(selected - selectedLine, lastTop))
        selectedLine = selected - topIndex
        guard topIndex > 0 || anchor != nil else {
            newAbove.removeAll()  // the viewport is at the top of the list: nothing is unseen
            newBeforeWindow = 0
            return
        }
        let above = Set(items[..<topIndex].lazy.map(\.id))
        newAbove.formUnion(arrived.filter { above.contains($0) })
        newAbove.formIntersection(above)
    }

    /// Within a quarter window of an edge with more items beyond it, reads a window around
    /// the selection.
    private mutating func followSelection() -> ItemListRequest? {
        guard let index = selectedIndex else { return nil }
        let margin = size / 4
        if index < margin, anchor != nil { return recenter(on: index, keepsSelection: true) }
        if index >= items.count - margin, !reachesEnd { return recenter(on: index, keepsSelection: true) }
        return nil
    }

    /// Reads a window with row `target` (relative to the current window, possibly outside it)
    /// in its middle, selecting that row.
    private mutating func recenter(on target: Int, keepsSelection: Bool) -> ItemListRequest {
        let start = target - size / 2
        guard start > 0 else {
            // The new window starts before the current one: read the items before it first.
            let back = -start
            return request(
                .before(ItemCursor(items[0]), limit: back + 1),
                stage: .back(target: target, back: back, keepsSelection: keepsSelection))
        }
        // The new window starts inside or just after the current one: its anchor is in hand.
        let anchorIndex = min(start, items.count) - 1
        let newStart = anchorIndex + 1
        return page(
            Placement(
                anchor: ItemCursor(items[anchorIndex]), offset: offset.map { $0 + newStart },
                selection: keepsSelection ? .current(start: newStart) : .item(nil, fallback: target - newStart)))
    }
}
