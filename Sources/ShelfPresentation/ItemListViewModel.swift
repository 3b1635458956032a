public import Foundation
public import ShelfReactive
public import ShelfStore

/// The item browser's list: a live, windowed view of the items matching a query.
///
/// It holds a window of `windowSize` rows around the selection whatever the table's size,
/// read with keyset pagination; moving the selection inside the window runs no SQL, and the
/// window follows when the selection nears its edge. Changes in the store, from any process,
/// update the rows and keep the selected item selected by ID; when it is deleted, the row
/// that took its place is selected. A newer query always wins: results of older ones are
/// dropped when they arrive late.
///
/// Main actor: call intents from the UI; `state` changes on the main actor. Store work runs
/// off the main actor.
@MainActor
public final class ItemListViewModel {
    /// What the list shows.
    public let state: Property<ViewState<ItemListContent>>
    /// The query shown.
    public private(set) var query: ItemQuery

    private let store: Store
    private let windowSize: Int
    private let mutableState = MutableProperty<ViewState<ItemListContent>>(.idle)
    private let token = Lifetime.Token()

    private var owners: [User.ID: User] = [:] {
        didSet {
            formattedRows = nil
            formatter.forget()
        }
    }
    private var window: ItemWindow? {
        didSet { formattedRows = nil }
    }
    /// `window`'s rows formatted, kept until the window or the owners change.
    private var formattedRows: [ItemRowViewModel]?
    private var formatter: ItemRowFormatter
    private var offset = 0
    private var anchor: ItemCursor?
    private var selectedID: Item.ID?
    private var selectedIndex: Int?
    /// Where the selection is going when it was moved beyond the window and the window that
    /// holds it is still being read: further moves count from here, so no key is lost.
    private var pendingPosition: Int?
    /// An item to select when it shows up in the window (see `select(id:)`).
    private var awaitedID: Item.ID?
    private var unfilteredCount: Int?
    private var message: String?
    private var isRefreshing = false
    /// Bumped by every request; results of older requests are ignored.
    private var generation = 0
    private var windowObservation: Observation?
    private var usersObservation: Observation?
    /// True while the live window's last run failed (the failure is on screen).
    private var liveFailed = false

    /// Where the selection goes in a newly read window.
    private enum Selection {
        /// The selected ID if still there, else its neighbour.
        case keep
        /// This row of the new window (clamped).
        case index(Int)
        case last
    }

    /// A list over `store`, starting with `query`; nothing is read until `load()`.
    /// - Parameters:
    ///   - store: the store to read and write.
    ///   - query: the first query; change it with `search(_:)`, `filter(status:)` and the like.
    ///   - windowSize: rows held at once (a few screens; at least 4 are kept).
    ///   - now: the clock for relative dates.
    public init(
        store: Store, query: ItemQuery = ItemQuery(), windowSize: Int = 200,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.store = store
        self.query = query
        self.windowSize = max(4, windowSize)
        formatter = ItemRowFormatter(now: now)
        state = mutableState.property
    }

    /// True when the query narrows the list (search text, status or owner).
    public var hasFilters: Bool { ItemListMapping.isFiltered(query) }

    /// The selected item's ID.
    public var selectedItemID: Item.ID? { selectedID }

    // MARK: - Intents

    /// Reads the first window and starts following changes.
    public func load() {
        if usersObservation == nil {
            let store = self.store
            Task.detached { [weak self] in
                guard let users = try? await store.liveUsers() else { return }
                await self?.follow(users)
            }
        }
        request(anchor: nil, offset: 0, selection: .index(0))
    }

    /// Shows the items whose title or notes contain every word of `text` (as prefixes).
    public func search(_ text: String) {
        guard text != query.text else { return }
        query.text = text
        request(anchor: nil, offset: 0, selection: .index(0))
    }

    /// Shows only items with `status` (all when nil).
    public func filter(status: Item.Status?) {
        guard status != query.status else { return }
        query.status = status
        request(anchor: nil, offset: 0, selection: .index(0))
    }

    /// Shows only `owner`'s items (all when nil).
    public func filter(owner: User.ID?) {
        guard owner != query.owner else { return }
        query.owner = owner
        request(anchor: nil, offset: 0, selection: .index(0))
    }

    /// Orders the list; the selected item stays selected when it is in the first window.
    public func sort(by field: ItemQuery.SortField, _ direction: ItemQuery.SortDirection) {
        guard field != query.sortField || direction != query.sortDirection else { return }
        query.sortField = field
        query.sortDirection = direction
        request(anchor: nil, offset: 0, selection: .index(0))
    }

    /// Removes the search text and the filters, keeping the sort.
    public func clearFilters() {
        guard hasFilters || !query.text.isEmpty else { return }
        query = ItemQuery(sortField: query.sortField, sortDirection: query.sortDirection)
        request(anchor: nil, offset: 0, selection: .index(0))
    }

    /// Selects the item with `id`: now when it is in the window, else as soon as a change
    /// brings it in (an item just saved, before the store's change arrives), unless the
    /// selection is moved meanwhile.
    public func select(id: Item.ID) {
        guard let index = window?.items.firstIndex(where: { $0.id == id }) else {
            awaitedID = id
            return
        }
        select(index: index)
    }

    /// Moves the selection by `count` rows (negative: up), clamped to the list.
    public func moveSelection(by count: Int) {
        guard let window, !window.items.isEmpty else { return }
        let total = max(window.totalCount, offset + window.items.count)
        let current = pendingPosition ?? (offset + (selectedIndex ?? 0))
        let target = max(0, min(current + count, total - 1))
        let relative = target - offset
        if relative >= 0, relative < window.items.count {
            select(index: relative)
            followSelection()
        } else {
            pendingPosition = target
            center(on: relative)
        }
    }

    /// Moves the selection down one page of `rows` rows.
    public func pageDown(rows: Int) { moveSelection(by: max(1, rows)) }

    /// Moves the selection up one page of `rows` rows.
    public func pageUp(rows: Int) { moveSelection(by: -max(1, rows)) }

    /// Selects the first item.
    public func jumpToTop() {
        if offset == 0, window != nil {
            select(index: 0)
        } else {
            request(anchor: nil, offset: 0, selection: .index(0))
        }
    }

    /// Selects the last item.
    public func jumpToBottom() {
        guard let window else { return }
        if offset + window.items.count >= window.totalCount {
            select(index: window.items.count - 1)
            return
        }
        let store = self.store
        let query = self.query
        let size = windowSize
        let generation = beginRequest()
        let source = WindowSource(store: store, query: query, size: size)
        Task.detached { [weak self] in
            do {
                // The last `size` items, and the one before them as the anchor.
                let tail = try await store.items.items(matching: query, before: nil, limit: size + 1)
                let total = try await store.items.count(matching: query)
                let anchor = tail.count > size ? ItemCursor(tail[0]) : nil
                let offset = tail.count > size ? max(0, total - size) : 0
                await self?.read(generation, from: source, anchor: anchor, offset: offset, selection: .last)
            } catch {
                await self?.fail(error, generation: generation)
            }
        }
    }

    /// Marks the item done, or open again when it is done.
    public func toggleDone(id: Item.ID) {
        let store = self.store
        Task.detached { [weak self] in
            do {
                // Read, flip, save; a concurrent edit (a conflict) is retried on fresh data.
                for attempt in 0..<3 {
                    guard var item = try await store.items.item(id: id) else { return }
                    item.status = item.status == .done ? .open : .done
                    do {
                        _ = try await store.items.update(item)
                        return
                    } catch let error as StoreError where error.code == .conflict && attempt < 2 {
                        continue
                    }
                }
            } catch {
                await self?.show(message: "Could not change the item: \(error)")
            }
        }
    }

    /// Deletes the item; the row after it is selected when the list updates.
    public func delete(id: Item.ID) {
        let store = self.store
        Task.detached { [weak self] in
            do {
                try await store.items.delete(id: id)
            } catch let error as StoreError where error.code == .notFound {
                // Already gone (deleted elsewhere): the list is updating anyway.
            } catch {
                await self?.show(message: "Could not delete the item: \(error)")
            }
        }
    }

    /// Reads the current window again, after a failure.
    public func retry() {
        request(anchor: anchor, offset: offset, selection: .keep)
    }

    // MARK: - Windows

    /// Selects `index` of the window and publishes, without touching the store.
    private func select(index: Int) {
        guard let window, !window.items.isEmpty else { return }
        let index = max(0, min(index, window.items.count - 1))
        pendingPosition = nil
        awaitedID = nil
        selectedIndex = index
        selectedID = window.items[index].id
        message = nil
        publish()
    }

    /// Moves the window when the selection is within a quarter window of an edge that has
    /// more items beyond it.
    private func followSelection() {
        guard let window, let index = selectedIndex else { return }
        let margin = windowSize / 4
        let moreAfter = offset + window.items.count < window.totalCount
        if index < margin, offset > 0 {
            center(on: index)
        } else if index >= window.items.count - margin, moreAfter {
            center(on: index)
        }
    }

    /// Reads a window with row `target` (an index relative to the current window, possibly
    /// outside it) in its middle, and selects that row.
    private func center(on target: Int) {
        guard let window, !window.items.isEmpty else { return }
        let items = window.items
        let start = target - windowSize / 2
        let inWindow = target >= 0 && target < items.count
        if start > 0 {
            // The new window starts inside or just after the current one: its anchor is in hand.
            let anchorIndex = min(start, items.count) - 1
            let newStart = anchorIndex + 1
            let selection: Selection = inWindow ? .keep : .index(target - newStart)
            request(anchor: ItemCursor(items[anchorIndex]), offset: offset + newStart, selection: selection)
            return
        }
        // The new window starts before the current one: read the items before it.
        let store = self.store
        let query = self.query
        let first = ItemCursor(items[0])
        let back = -start
        let currentOffset = offset
        let generation = beginRequest()
        let source = WindowSource(store: store, query: query, size: windowSize)
        Task.detached { [weak self] in
            do {
                let before = try await store.items.items(matching: query, before: first, limit: back + 1)
                let anchor = before.count > back ? ItemCursor(before[0]) : nil
                let newOffset = before.count > back ? currentOffset - back : 0
                let selection: Selection = inWindow ? .keep : .index(currentOffset + target - newOffset)
                await self?.read(generation, from: source, anchor: anchor, offset: newOffset, selection: selection)
            } catch {
                await self?.fail(error, generation: generation)
            }
        }
    }

    /// Starts a request: later results of earlier ones will be ignored.
    private func beginRequest() -> Int {
        generation += 1
        if window == nil || state.value.value == nil {
            if case .loaded = mutableState.value {} else { mutableState.value = .loading }
        } else {
            isRefreshing = true
            publish()
        }
        return generation
    }

    private func request(anchor: ItemCursor?, offset: Int, selection: Selection) {
        // A new query or a jump decides the selection; an item still awaited no longer does.
        if case .index = selection { awaitedID = nil }
        let generation = beginRequest()
        let source = WindowSource(store: store, query: query, size: windowSize)
        Task.detached { [weak self] in
            await self?.read(generation, from: source, anchor: anchor, offset: offset, selection: selection)
        }
    }

    /// What a window is read from, captured on the main actor when the request is made.
    private struct WindowSource: Sendable {
        let store: Store
        let query: ItemQuery
        let size: Int
    }

    /// Opens the live window for `generation` off the main actor, then installs it.
    nonisolated private func read(
        _ generation: Int, from source: WindowSource, anchor: ItemCursor?, offset: Int, selection: Selection
    ) async {
        let (store, query, size) = (source.store, source.query, source.size)
        do {
            let live = try await store.liveItems(matching: query, after: anchor, limit: size)
            let first = try live.value.get()
            let unfiltered = first.totalCount == 0 ? try await store.items.count(matching: ItemQuery()) : nil
            await install(
                live, first: first, generation: generation, anchor: anchor, offset: offset, selection: selection,
                unfilteredCount: unfiltered)
        } catch {
            await fail(error, generation: generation)
        }
    }

    private func install(
        _ live: Property<LiveResult<ItemWindow>>, first: ItemWindow, generation: Int, anchor: ItemCursor?,
        offset: Int, selection: Selection, unfilteredCount: Int?
    ) {
        guard generation == self.generation else { return }
        windowObservation?.cancel()
        self.anchor = anchor
        self.offset = offset
        self.unfilteredCount = unfilteredCount
        pendingPosition = nil
        isRefreshing = false
        liveFailed = false
        apply(first, selection: selection)
        // A jump further than one window: this window is a step on the way; go on from it.
        if case .index(let row) = selection, row >= first.items.count, !first.items.isEmpty,
            offset + first.items.count < first.totalCount
        {
            pendingPosition = min(offset + row, first.totalCount - 1)
            center(on: row)
        }
        windowObservation = live.observeOnMainActor(during: token.lifetime) { [weak self] result in
            guard let self, generation == self.generation else { return }
            switch result {
            case .success(let window):
                // The first delivery is the value just applied; after a failure, the same
                // window is news too (the failure is over).
                guard window != self.window || self.liveFailed else { return }
                self.liveFailed = false
                self.liveChange(window)
            case .failure(let error):
                // The query retries by itself; the next success replaces this state.
                self.liveFailed = true
                self.fail(error, generation: generation)
            }
        }
    }

    /// A change in the store reached the window.
    private func liveChange(_ newWindow: ItemWindow) {
        if newWindow.items.isEmpty, newWindow.totalCount > 0 {
            // Everything from the anchor on went away: read the list again from its start.
            window = newWindow
            request(anchor: nil, offset: 0, selection: .keep)
            return
        }
        if newWindow.totalCount == 0, unfilteredCount == nil, ItemListMapping.isFiltered(query) {
            let store = self.store
            let generation = self.generation
            Task.detached { [weak self] in
                let unfiltered = try? await store.items.count(matching: ItemQuery())
                await self?.setUnfilteredCount(unfiltered, generation: generation)
            }
        }
        apply(newWindow, selection: .keep)
    }

    private func setUnfilteredCount(_ count: Int?, generation: Int) {
        guard generation == self.generation else { return }
        unfilteredCount = count
        publish()
    }

    private func apply(_ newWindow: ItemWindow, selection: Selection) {
        window = newWindow
        let items = newWindow.items
        var index: Int?
        switch selection {
        case .index(let row): index = row
        case .last: index = items.count - 1
        case .keep:
            if let awaited = awaitedID, let found = items.firstIndex(where: { $0.id == awaited }) {
                index = found
                awaitedID = nil
            } else if let selectedID, let found = items.firstIndex(where: { $0.id == selectedID }) {
                index = found
            } else {
                // The selected item went away: its neighbour takes the selection.
                index = selectedIndex ?? 0
            }
        }
        if let row = index, !items.isEmpty {
            let clamped = max(0, min(row, items.count - 1))
            selectedIndex = clamped
            selectedID = items[clamped].id
        } else {
            selectedIndex = nil
            selectedID = nil
        }
        publish()
    }

    private func publish() {
        guard let window else { return }
        let rows: [ItemRowViewModel]
        if let formattedRows {
            rows = formattedRows
        } else {
            rows = formatter.rows(for: window.items, owners: owners)
            formattedRows = rows
        }
        mutableState.value = ItemListMapping.state(
            rows: rows, totalCount: window.totalCount, windowOffset: offset, selectedIndex: selectedIndex,
            query: query, owners: owners, unfilteredCount: unfilteredCount, isRefreshing: isRefreshing,
            message: message)
    }

    private func fail(_ error: any Error, generation: Int) {
        guard generation == self.generation else { return }
        isRefreshing = false
        mutableState.value = .failed(Failure("Could not read the items: \(error)", underlying: error))
    }

    private func show(message: String) {
        self.message = message
        publish()
    }

    private func follow(_ users: Property<LiveResult<[User]>>) {
        usersObservation = users.observeOnMainActor(during: token.lifetime) { [weak self] result in
            // A failure keeps the last names; the items' own live query reports it.
            guard let self, case .success(let users) = result else { return }
            owners = Dictionary(users.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
            publish()
        }
    }
}
