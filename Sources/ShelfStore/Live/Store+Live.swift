public import ShelfReactive

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
    /// The first result is read before this returns. After that the property changes
    /// whenever a commit (in this process, another process, or — on a server database —
    /// another machine) changes the items or their search index and the window's content or
    /// the count differs; it never publishes the same window twice. Changes arrive on a
    /// queue of the store's; use `observeOnMainActor` for UI code. The query runs as long as
    /// the property or an observation of it exists.
    ///
    /// When a re-run fails (the database busy past the timeout, damaged, a table dropped by
    /// another process, the server unreachable), the property becomes `.failure` once; the
    /// query retries by itself and on every change, and becomes `.success` again as soon as a
    /// run succeeds. A failure with code `.fileReplaced` is final: the file was deleted or
    /// replaced while open, and the store must be opened again.
    /// - Throws: `StoreError` when the first read fails.
    public func liveItems(matching query: ItemQuery, after anchor: ItemCursor? = nil, limit: Int) async throws
        -> Property<LiveResult<ItemWindow>>
    {
        try await backend.liveItems(matching: query, after: anchor, limit: limit)
    }

    /// A live window of the items matching `query`, as `liveItems(matching:after:limit:)`,
    /// with the position in the store's change stream that each window reflects (see
    /// `LivePosition` for what it means and how a service resumes a client from it).
    ///
    /// Positions grow with every publication; equal windows are never published twice. On a
    /// backend that keeps no change log, `position` is nil.
    /// - Throws: `StoreError` when the first read fails.
    public func liveItemSnapshots(matching query: ItemQuery, after anchor: ItemCursor? = nil, limit: Int) async throws
        -> Property<LiveResult<LiveSnapshot<ItemWindow>>>
    {
        try await backend.liveItemSnapshots(matching: query, after: anchor, limit: limit)
    }

    /// The item with `id`, live: nil once it is deleted (or when it does not exist). Failures
    /// as for `liveItems(matching:after:limit:)`.
    /// - Throws: `StoreError` when the first read fails.
    public func liveItem(id: Item.ID) async throws -> Property<LiveResult<Item?>> {
        try await backend.liveItem(id: id)
    }

    /// All users ordered by name, live. Failures as for `liveItems(matching:after:limit:)`.
    /// - Throws: `StoreError` when the first read fails.
    public func liveUsers() async throws -> Property<LiveResult<[User]>> {
        try await backend.liveUsers()
    }

    /// Every user with their item counts, ordered by name, live. Failures as for
    /// `liveItems(matching:after:limit:)`.
    ///
    /// Re-read whenever users or items change; each read counts all items, so expect it to
    /// cost a scan of the items' owner index on very large stores.
    /// - Throws: `StoreError` when the first read fails.
    public func liveUserSummaries() async throws -> Property<LiveResult<[UserSummary]>> {
        try await backend.liveUserSummaries()
    }

    /// All saved views ordered by name (as `views.views()`), live: a view saved, renamed or
    /// deleted by any process shows up. Re-read only on commits that change saved views.
    /// Failures as for `liveItems(matching:after:limit:)`.
    /// - Throws: `StoreError` when the first read fails.
    public func liveSavedViews() async throws -> Property<LiveResult<[SavedView]>> {
        try await backend.liveSavedViews()
    }
}

/// What a live property holds: the latest result of its query, or why its latest run failed.
public typealias LiveResult<Value> = Result<Value, StoreError>
