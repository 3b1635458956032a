public import ShelfReactive
internal import ShelfSQLite

/// A window of a live item list: up to `limit` items after an anchor, and how many items
/// match the query in all.
public struct ItemWindow: Hashable, Sendable {
    /// The items, in the query's order.
    public let items: [Item]
    /// How many items match the query (not only those in the window).
    public let totalCount: Int

    /// A window of `items` out of `totalCount`.
    public init(items: [Item], totalCount: Int) {
        self.items = items
        self.totalCount = totalCount
    }
}

extension Store {
    /// A live window of the items matching `query`: up to `limit` items after `anchor` (from
    /// the first when nil), with the total count.
    ///
    /// The first result is read now, on the calling thread. After that the property changes
    /// whenever a commit (in this process or another) changes the items or their search
    /// index and the window's content or the count differs; it never publishes the same
    /// window twice. Changes arrive on the store's change-tracking queue; use
    /// `observeOnMainActor` for UI code. The query runs as long as the property or an
    /// observation of it exists.
    ///
    /// When a re-run fails (the database busy past the timeout, damaged, a table dropped by
    /// another process), the property becomes `.failure` once; the query retries by itself
    /// and on every change, and becomes `.success` again as soon as a run succeeds. A
    /// failure with code `.fileReplaced` is final: the file was deleted or replaced while
    /// open, and the store must be opened again.
    /// - Throws: `StoreError` when the first read fails.
    public func liveItems(matching query: ItemQuery, after anchor: ItemCursor? = nil, limit: Int) throws -> Property<
        LiveResult<ItemWindow>
    > {
        try makeLiveItems(matching: query, after: anchor, limit: limit).property
    }

    /// The item with `id`, live: nil once it is deleted (or when it does not exist). Failures
    /// as for `liveItems(matching:after:limit:)`.
    /// - Throws: `StoreError` when the first read fails.
    public func liveItem(id: Item.ID) throws -> Property<LiveResult<Item?>> {
        try makeLive { try SQLiteItemRepository.item(id: id, $0) }.property
    }

    /// All users ordered by name, live. Failures as for `liveItems(matching:after:limit:)`.
    /// - Throws: `StoreError` when the first read fails.
    public func liveUsers() throws -> Property<LiveResult<[User]>> {
        try makeLive { try SQLiteUserRepository.users($0) }.property
    }

    /// Every user with their item counts, ordered by name, live. Failures as for
    /// `liveItems(matching:after:limit:)`.
    ///
    /// Re-read whenever users or items change; each read counts all items, so expect it to
    /// cost a scan of the items' owner index on very large stores.
    /// - Throws: `StoreError` when the first read fails.
    public func liveUserSummaries() throws -> Property<LiveResult<[UserSummary]>> {
        try makeLive { try SQLiteUserRepository.summaries($0) }.property
    }

    func makeLiveItems(matching query: ItemQuery, after anchor: ItemCursor?, limit: Int) throws -> LiveValue<ItemWindow>
    {
        try makeLive { connection in
            ItemWindow(
                items: try SQLiteItemRepository.page(query, cursor: anchor, backward: false, limit: limit, connection),
                totalCount: try SQLiteItemRepository.count(query, connection))
        }
    }

    func makeLive<Value: Equatable & Sendable>(
        _ fetch: @escaping @Sendable (Connection) throws -> Value
    ) throws -> LiveValue<Value> {
        let query = try StoreError.translating { try LiveQuery(database: database, fetch: fetch) }
        return LiveValue(query: query)
    }
}

/// What a live property holds: the latest result of its query, or why its latest run failed.
public typealias LiveResult<Value> = Result<Value, StoreError>

/// A live query and the property it publishes to. The property retains this object, so
/// the query runs while the property or an observation of it exists.
final class LiveValue<Value: Equatable & Sendable>: Sendable {
    let query: LiveQuery<Value>
    private let mutable: MutableProperty<LiveResult<Value>>

    init(query: LiveQuery<Value>) {
        self.query = query
        let initial = query.value
        let mutable = MutableProperty(LiveResult<Value>.success(initial))
        self.mutable = mutable
        // The query publishes only outcomes that differ from the last one.
        query.start(from: initial) { [weak mutable] outcome in
            switch outcome {
            case .value(let value): mutable?.value = .success(value)
            case .failure(let error): mutable?.value = .failure(StoreError.translatingAny(error))
            }
        }
    }

    var property: Property<LiveResult<Value>> { Property(mutable, retaining: self) }
}
