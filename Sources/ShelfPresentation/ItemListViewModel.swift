public import Foundation
public import ShelfReactive
public import ShelfStore

/// The item browser's list: a live, windowed view of the items matching a query.
///
/// It holds a window of `windowSize` rows around the selection whatever the table's size,
/// read with keyset pagination; moving the selection inside the window runs no SQL, and the
/// window follows when the selection nears its edge. The selected item stays selected by ID
/// across searches, filters, sorts and changes in the store from any process, on the same
/// screen line when possible; when it leaves the result, its neighbour is selected. Items that
/// arrive above the first shown row do not scroll the list: `ItemListContent.newAboveCount`
/// counts them until `jumpToTop()`. A new query's rows show as soon as its first page is read;
/// its count follows (`totalCount` is nil meanwhile). A newer query always wins: results of
/// older ones are dropped when they arrive late.
///
/// The windowing rules live in `ItemListWindow`, a value; this class runs the reads it asks
/// for and feeds the results back.
///
/// Main actor: call intents from the UI; `state` changes on the main actor. Store work runs
/// off the main actor. Each intent returns an `Intent`: `await search("x").finished()` waits
/// until its rows (and their count) show; a newer intent cancels the reads of older ones.
@MainActor
public final class ItemListViewModel {
    /// What the list shows.
    public let state: Property<ViewState<ItemListContent>>
    /// How `hint` names keys: the browser sets the keys in force.
    public var keys = KeyNames.defaults

    let store: Store
    private let mutableState = MutableProperty<ViewState<ItemListContent>>(.idle)
    private let token = Lifetime.Token()
    let tasks = IntentTracker()
    var window: ItemListWindow

    private var owners: [User.ID: User] = [:] {
        didSet {
            formattedRows = nil
            formatter.forget()
        }
    }
    /// The window's rows formatted, and the items they were formatted from.
    private var formattedRows: (items: [Item], rows: [ItemRowViewModel])?
    private var formatter: ItemRowFormatter
    private var unfilteredCount: Int?
    private var message: String?
    private var windowObservation: Observation?
    private var usersObservation: Observation?
    /// True while the live window's last run failed (the failure is on screen).
    private var liveFailed = false
    /// True from a read started after a failure until a read answers: the failure stays on screen,
    /// and the rows from before it are not shown again meanwhile (they may be gone: a deleted
    /// database file's rows showed for as long as the retry's read took to fail again).
    private var holdsFailure = false
    /// Awaited before each live window (which counts the items) is opened; tests hold it to
    /// see the rows shown before the count.
    var beforeCounting: (@Sendable () async -> Void)?

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
        window = ItemListWindow(query: query, size: windowSize)
        formatter = ItemRowFormatter(now: now)
        state = mutableState.property
    }

    /// The query shown (or being read).
    public var query: ItemQuery { window.query }

    /// True when the query narrows the list (search text, status or owner).
    public var hasFilters: Bool { ItemListMapping.isFiltered(query) }

    /// The selected item's ID.
    public var selectedItemID: Item.ID? { window.selectedID }

    /// The selected row as shown, or nil when nothing is selected.
    public var selectedRow: ItemRowViewModel? { state.value.value?.selectedRow }

    /// Where the database is (`Store.location`).
    var location: String { store.location }

    /// The query's text parsed, once per text (not once per frame).
    var parsedQuery: ParsedQueryText {
        if let parsedQueryCache, parsedQueryCache.text == query.text { return parsedQueryCache }
        let parsed = ParsedQueryText(query.text)
        parsedQueryCache = parsed
        return parsed
    }
    private var parsedQueryCache: ParsedQueryText?

    // MARK: - Intents

    /// Reads the first window and starts following changes (and the users, for the owners'
    /// names).
    @discardableResult
    public func load() -> Intent {
        tasks.intent {
            loadUsers()
            run(window.load())
        }
    }

    /// Shows the items whose title or notes contain every word of `text` (as prefixes).
    @discardableResult
    public func search(_ text: String) -> Intent {
        var query = self.query
        query.text = text
        return change(to: query)
    }

    /// Shows only items with `status` (all when nil).
    @discardableResult
    public func filter(status: Item.Status?) -> Intent {
        var query = self.query
        query.status = status
        return change(to: query)
    }

    /// Shows only `owner`'s items (all when nil).
    @discardableResult
    public func filter(owner: User.ID?) -> Intent {
        var query = self.query
        query.owner = owner
        return change(to: query)
    }

    /// Orders the list by `field` in `direction`.
    @discardableResult
    public func sort(by field: ItemQuery.SortField, _ direction: ItemQuery.SortDirection) -> Intent {
        var query = self.query
        query.sortField = field
        query.sortDirection = direction
        return change(to: query)
    }

    /// Orders the list by the next field (`ItemQuery.SortField.allCases` order), in its usual
    /// direction (`ItemListSorting.defaultDirection(for:)`).
    @discardableResult
    public func sortByNextField() -> Intent {
        let field = ItemListSorting.field(after: query.sortField)
        return sort(by: field, ItemListSorting.defaultDirection(for: field))
    }

    /// Reverses the order.
    @discardableResult
    public func reverseSortDirection() -> Intent {
        sort(by: query.sortField, ItemListSorting.reversed(query.sortDirection))
    }

    /// Orders the list by `field` (a column header's): in its usual direction, or the other
    /// way when the list is already ordered by it.
    @discardableResult
    public func sortByColumn(_ field: ItemQuery.SortField) -> Intent {
        if field == query.sortField {
            reverseSortDirection()
        } else {
            sort(by: field, ItemListSorting.defaultDirection(for: field))
        }
    }

    /// Removes the search text and the filters, keeping the sort.
    @discardableResult
    public func clearFilters() -> Intent {
        change(to: ItemQuery(sortField: query.sortField, sortDirection: query.sortDirection))
    }

    /// Selects the item with `id`: now when it is in the window, else as soon as a change
    /// brings it in (an item just saved, before the store's change arrives), unless the
    /// selection is moved meanwhile.
    public func select(id: Item.ID) {
        window.select(id: id)
        message = nil
        publish()
    }

    /// Moves the selection by `count` rows (negative: up), clamped to the list; reads more
    /// rows when the selection nears the window's edge.
    @discardableResult
    public func moveSelection(by count: Int) -> Intent {
        message = nil
        return tasks.intent { run(window.move(by: count)) }
    }

    /// Moves the selection down one page of `rows` rows.
    @discardableResult
    public func pageDown(rows: Int) -> Intent { moveSelection(by: max(1, rows)) }

    /// Moves the selection up one page of `rows` rows.
    @discardableResult
    public func pageUp(rows: Int) -> Intent { moveSelection(by: -max(1, rows)) }

    /// Selects the first item, on the first line; clears "↑ N new".
    @discardableResult
    public func jumpToTop() -> Intent { tasks.intent { run(window.jumpToTop()) } }

    /// Selects the last item.
    @discardableResult
    public func jumpToBottom() -> Intent { tasks.intent { run(window.jumpToBottom()) } }

    /// Tells the list how many rows fit on screen, so it can keep the selected row on its line
    /// and know which rows are above the first shown one.
    public func setVisibleRowCount(_ rows: Int) {
        guard rows != window.viewportRows else { return }
        window.setViewport(rows: rows)
        publish()
    }

    /// Reads the current window again, after a failure (and the users, when reading them
    /// failed).
    @discardableResult
    public func retry() -> Intent {
        tasks.intent {
            // The file was deleted or replaced under the browser (hostile round 11): a read now
            // would show the old file's rows as current. The failure stays; it says to start again.
            if let failure = state.value.failure, Self.isFileReplaced(failure) { return }
            loadUsers()
            run(window.retry())
        }
    }

    /// True when `failure` is the store's file deleted or replaced while open: nothing read
    /// here is current any more, and only starting again opens the file now at that path.
    nonisolated static func isFileReplaced(_ failure: Failure) -> Bool {
        (failure.underlying as? StoreError)?.code == .fileReplaced
    }

    // MARK: - Reads

    private func change(to newQuery: ItemQuery) -> Intent {
        tasks.intent {
            guard let request = window.change(to: newQuery) else { return }
            unfilteredCount = nil
            run(request)
        }
    }

    /// What a read brought back.
    private enum ReadResult: Sendable {
        case before([Item])
        case page([Item], unfilteredCount: Int?)
        case live(Property<LiveResult<ItemWindow>>, first: ItemWindow, unfilteredCount: Int?)
    }

    /// Reads running now. Typing a search makes a request per key: at most
    /// `maximumReadsInFlight` run at once, and of the requests made meanwhile only the newest
    /// waits (the others are stale before they could start), so fast typing never piles up
    /// reads that the store must run and the window then drops.
    private var readsInFlight = 0
    private var waitingRequest: ItemListRequest?
    static let maximumReadsInFlight = 2

    /// Runs `request` off the main actor and feeds its result to the window; publishes either way.
    private func run(_ request: ItemListRequest?) {
        if let request {
            // After a failure, a new read (a retry, another query) shows its own rows or
            // failure, never the rows from before.
            if mutableState.value.failure != nil { holdsFailure = true }
            cancelReads(before: request.number)
            if !window.hasWindow, mutableState.value != .loading { mutableState.value = .loading }
            if readsInFlight < Self.maximumReadsInFlight {
                start(request)
            } else {
                waitingRequest = request
            }
        }
        publish()
    }

    /// The tasks of the reads running now, by request number: a newer request cancels the
    /// others (their results would be dropped), which interrupts their reads in the store, so
    /// a superseded search — a long phrase replaced by the next key, or abandoned with Esc —
    /// stops using the CPU at once.
    private var readTasks: [Int: Intent] = [:]

    /// How many reads run now; for tests.
    var runningReadCount: Int { readTasks.count }

    private func start(_ request: ItemListRequest) {
        readsInFlight += 1
        let (store, hook) = (self.store, beforeCounting)
        // A read always ends through `finished`, cancelled or not: it counts the reads in
        // flight and starts the one waiting.
        readTasks[request.number] = tasks.start(
            { () async -> Result<ReadResult, any Error> in
                do {
                    return .success(try await Self.perform(request, store: store, beforeCounting: hook))
                } catch {
                    return .failure(error)
                }
            },
            then: { [weak self] outcome in self?.finished(request, outcome) },
            onFailure: { _ in })  // `work` cannot throw: `finished` shows every failure of the newest request
    }

    /// Cancels every running read made for a request older than `number`.
    private func cancelReads(before number: Int) {
        for (running, intent) in readTasks where running < number { intent.task?.cancel() }
    }

    /// Ends the read of `request`: hands on its outcome, then starts the request that waited,
    /// unless a newer one has replaced it since.
    private func finished(_ request: ItemListRequest, _ outcome: Result<ReadResult, any Error>) {
        readsInFlight -= 1
        readTasks[request.number] = nil
        switch outcome {
        case .success(let result): receive(result, for: request.number)
        case .failure(let error): fail(error, request: request.number)
        }
        defer { readPositionIfUnknown() }
        guard readsInFlight < Self.maximumReadsInFlight, let waiting = waitingRequest else { return }
        waitingRequest = nil
        if waiting.number == window.requestNumber { start(waiting) }
    }

    /// The request a position read was made for, so that it is made once.
    var positionReadFor: Int?

    nonisolated private static func perform(
        _ request: ItemListRequest, store: Store, beforeCounting: (@Sendable () async -> Void)?
    ) async throws -> ReadResult {
        let query = request.query
        // When nothing matches a filtered query, the message says how many items the filters hide.
        func unfiltered(_ count: Int) async throws -> Int? {
            count == 0 && ItemListMapping.isFiltered(query) ? try await store.items.count(matching: ItemQuery()) : nil
        }
        switch request.read {
        case .before(let cursor, let limit):
            return .before(try await store.items.items(matching: query, before: cursor, limit: limit))
        case .page(let anchor, let limit):
            let items = try await store.items.items(matching: query, after: anchor, limit: limit)
            return .page(items, unfilteredCount: anchor == nil ? try await unfiltered(items.count) : nil)
        case .live(let anchor, let limit):
            await beforeCounting?()
            let live = try await store.liveItems(matching: query, after: anchor, limit: limit)
            let first = try live.value.get()
            return .live(live, first: first, unfilteredCount: try await unfiltered(first.totalCount))
        }
    }

    private func receive(_ result: ReadResult, for number: Int) {
        guard number == window.requestNumber else { return }
        holdsFailure = false
        switch result {
        case .before(let items):
            run(window.receive(before: items, for: number))
        case .page(let items, let unfiltered):
            if let unfiltered { unfilteredCount = unfiltered }
            run(window.receive(page: items, for: number))
        case .live(let live, let first, let unfiltered):
            if let unfiltered { unfilteredCount = unfiltered }
            windowObservation?.cancel()
            liveFailed = false
            run(window.receive(live: first, for: number))
            follow(live, number: number)
        }
    }

    /// Feeds every later result of the live window opened by request `number` to the window.
    private func follow(_ live: Property<LiveResult<ItemWindow>>, number: Int) {
        windowObservation = live.observeOutsideIntents(during: token.lifetime) { [weak self] result in
            guard let self, number == window.requestNumber else { return }
            switch result {
            case .success(let value):
                // The first delivery is the value just applied; after a failure, the same
                // window is news too (the failure is over).
                let shown = ItemWindow(items: window.items, totalCount: window.totalCount ?? -1)
                guard value != shown || liveFailed else { return }
                liveFailed = false
                holdsFailure = false
                if value.totalCount == 0, unfilteredCount == nil, hasFilters { readUnfilteredCount(number) }
                let countChanged = value.totalCount != shown.totalCount
                run(window.receive(live: value, for: number))
                if let lost = window.lostSelection { followLostSelection(lost, number: number) }
                readPositionIfUnknown()
                // The count moved: items may have come or gone above the rows held.
                if countChanged { recountBeforeWindow(number) }
            case .failure(let error):
                // The query retries by itself; the next success replaces this state.
                liveFailed = true
                fail(error, request: number)
            }
        }
    }

    /// The selected item left the window in a live change: read it again, and when it still
    /// exists go where it is now (the window checks that it still matches).
    private func followLostSelection(_ id: Item.ID, number: Int) {
        let store = self.store
        tasks.start(
            { try await store.items.item(id: id) },
            then: { [weak self] item in
                // Deleted: the window has selected its neighbour already.
                if let item { self?.follow(moved: item, number: number) }
            },
            onFailure: { [weak self] error in
                self?.report("Could not follow the selected item to its new place", error, number)
            })
    }

    private func follow(moved item: Item, number: Int) {
        guard number == window.requestNumber else { return }
        run(window.follow(moved: item))
    }

    private func readUnfilteredCount(_ number: Int) {
        let store = self.store
        tasks.start(
            { try await store.items.count(matching: ItemQuery()) },
            then: { [weak self] count in self?.setUnfilteredCount(count, request: number) },
            onFailure: { [weak self] error in
                self?.report("Could not count all the items", error, number)
            })
    }

    private func setUnfilteredCount(_ count: Int, request number: Int) {
        guard number == window.requestNumber else { return }
        unfilteredCount = count
        publish()
    }

    // MARK: - State

    /// Formats the rows' times again as time passes ("26m ago" becomes "27m ago"), and
    /// publishes a new state only when a row's text changed: a screen whose times read the same
    /// is not drawn again. Call it every few seconds.
    public func refreshRelativeTimes() {
        guard window.hasWindow, let formattedRows, formattedRows.items == window.items else { return }
        let rows = formatter.rows(for: formattedRows.items, owners: owners)
        guard rows != formattedRows.rows else { return }
        self.formattedRows = (formattedRows.items, rows)
        publish()
    }

    func publish() {
        guard window.hasWindow, !holdsFailure else { return }
        let rows: [ItemRowViewModel]
        if let formattedRows, formattedRows.items == window.items {
            rows = formattedRows.rows
        } else {
            rows = formatter.rows(for: window.items, owners: owners)
            formattedRows = (window.items, rows)
        }
        mutableState.value = ItemListMapping.state(
            rows: rows, totalCount: window.totalCount, windowOffset: window.offset,
            selectedIndex: window.selectedIndex, topIndex: window.topIndex, newAboveCount: window.newAboveCount,
            query: query, owners: owners, unfilteredCount: unfilteredCount, isRefreshing: window.isRefreshing,
            message: message)
    }

    private func fail(_ error: any Error, request number: Int) {
        guard number == window.requestNumber else { return }
        window.fail(number)
        mutableState.value = .failed(Failure("Could not read the items: \(error)", underlying: error))
    }

    /// Shows that a secondary read for request `number` (not the rows themselves) failed,
    /// while that request is still the newest.
    func report(_ what: String, _ error: any Error, _ number: Int) {
        guard number == window.requestNumber else { return }
        message = "\(what): \(error)"
        publish()
    }

    /// Starts following the users (for the owners' names) unless it already does.
    private func loadUsers() {
        guard usersObservation == nil else { return }
        let store = self.store
        tasks.start(
            key: "users", { try await store.liveUsers() }, then: { [weak self] users in self?.follow(users) },
            onFailure: { [weak self] error in
                guard let self else { return }
                message =
                    "Could not read the users, so owners show as unknown: \(error); press \(keys("list.retry", "r")) to try again"
                publish()
            })
    }

    private func follow(_ users: Property<LiveResult<[User]>>) {
        usersObservation = users.observeOutsideIntents(during: token.lifetime) { [weak self] result in
            // A failure keeps the last names; the items' own live query reports it.
            guard let self, case .success(let users) = result else { return }
            owners = Dictionary(users.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
            publish()
        }
    }
}
