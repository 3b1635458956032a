/// Stores items.
///
/// Every method is safe to call from any task. Mutations are atomic: when one throws, the
/// store is as it was. Errors are `StoreError`.
///
/// Lists are read a page at a time with keyset pagination: pass the cursor of the last item
/// you hold to get the ones after it, or of the first to get the ones before it. A page
/// costs the same at row 100,000 as at row 1.
public protocol ItemRepository: BulkItemWriting {
    /// Stores a new item (version 1) and returns its ID.
    /// - Throws: `.unknownUser`, `.invalidValue` (empty title, priority out of 0…3).
    @discardableResult
    func insert(_ item: NewItem) async throws -> Item.ID

    /// Stores all `items` in one transaction and returns their IDs in order. When one fails,
    /// none is stored and the error names its position.
    @discardableResult
    func insert(contentsOf items: [NewItem]) async throws -> [Item.ID]

    /// Saves `item`'s fields if it is still at `item.version`, and returns the stored item
    /// (version + 1, new `updatedAt`).
    /// - Throws: `.conflict` when the stored version differs (nothing is written), `.notFound`,
    ///   `.unknownUser`, `.invalidValue`.
    func update(_ item: Item) async throws -> Item

    /// Saves every item of `items` in one transaction, each only if it is still at its
    /// `version`, and returns the stored items in the same order (each at version + 1, with a
    /// new `updatedAt`). Live queries see the whole batch as one change.
    ///
    /// All or nothing: when one item was changed or deleted meanwhile, or breaks a rule,
    /// nothing is written, and the error's message names that item by ID. An empty array
    /// writes nothing and returns an empty array.
    /// - Throws: `.conflict` (an item's stored version differs), `.notFound` (an item was
    ///   deleted), `.unknownUser`, `.invalidValue` (a rule, or the same ID twice in `items`).
    func update(contentsOf items: [Item]) async throws -> [Item]

    /// Puts deleted items back, in one transaction, exactly as they were: the same IDs,
    /// owners, titles, notes, status, priority, `createdAt`, `updatedAt` and `version` (the
    /// undo of a delete). Live queries see them come back as one change. IDs given back are
    /// never handed out to new items afterwards.
    ///
    /// All or nothing: when an item's ID exists (it was never deleted, or was restored or
    /// reused since) or its owner no longer exists, nothing is written and the error says
    /// which item, and why.
    /// - Throws: `.conflict` (the ID exists), `.unknownUser` (the owner is gone),
    ///   `.invalidValue` (a rule, or the same ID twice in `items`).
    func restore(_ items: [Item]) async throws

    /// Deletes the item with `id`.
    /// - Throws: `.notFound` when no such item exists.
    func delete(id: Item.ID) async throws

    /// Deletes `item` only if the stored row is still at `item.version` and owned by
    /// `item.userID` (a read of it): the check is part of the DELETE, so a change committed
    /// since the read (an edit, a new owner) is never deleted unseen.
    /// - Throws: `.conflict` when the stored version or owner differs (nothing is deleted),
    ///   `.notFound` when no such item exists.
    func delete(_ item: Item) async throws

    /// Deletes every item in `ids` that exists, in one transaction; returns how many.
    func deleteItems(ids: [Item.ID]) async throws -> Int

    /// The item with `id`, or nil.
    func item(id: Item.ID) async throws -> Item?

    /// Up to `limit` items (all when nil) matching `query`, in its order, starting just after
    /// `cursor` (from the first when nil).
    func items(matching query: ItemQuery, after cursor: ItemCursor?, limit: Int?) async throws -> [Item]

    /// Up to `limit` items matching `query` that come just before `cursor` (the last ones
    /// when nil), returned in the query's order.
    func items(matching query: ItemQuery, before cursor: ItemCursor?, limit: Int) async throws -> [Item]

    /// How many items match `query`.
    func count(matching query: ItemQuery) async throws -> Int

    /// How many items matching `query` come before `cursor` in its order: the position of
    /// the item at `cursor`, counted from 0. Costs about as much as reading that many rows.
    func count(matching query: ItemQuery, before cursor: ItemCursor) async throws -> Int
}

extension ItemRepository {
    /// Up to `limit` items matching `query` from the first, in its order.
    public func items(matching query: ItemQuery, limit: Int? = nil) async throws -> [Item] {
        try await items(matching: query, after: nil, limit: limit)
    }
}

/// Writes to many items at once, described by an `ItemSelection`, as set-based SQL in one
/// transaction, recorded in the database for undo (table `bulk_actions`, Migrations 0013 and
/// postgres/0011).
///
/// Every method is all or nothing: when it throws (cancelled too), the store is as it was.
/// Errors are `StoreError`; cancelling the calling task stops the statement and throws
/// `CancellationError`, with nothing written.
public protocol BulkItemWriting: Sendable {
    /// How many items of `selection` exist now (with `status`, when given).
    func count(in selection: ItemSelection, status: Item.Status?) async throws -> Int

    /// The highest item ID there is (nil when there are no items): an `ItemSelection`'s
    /// `through`, taken when a query is marked. Item IDs only grow, so items added later have
    /// higher ones.
    func highestItemID() async throws -> Item.ID?

    /// Which items of `ids` are in `selection` (the rows a list shows, to draw their marks).
    func ids(in selection: ItemSelection, among ids: [Item.ID]) async throws -> Set<Item.ID>

    /// Applies `change` to every item of `selection` that it would change (an item already
    /// at that status, priority or owner is left alone), in one transaction, and records each
    /// changed item's values before it in the database, under the returned action's `id`.
    /// `progress` hears how far the write has got, from the thread doing it. The write never
    /// runs on a thread tasks share.
    /// - Throws: `.unknownUser` (no such owner), `.invalidValue` (a priority out of range).
    func updateItems(
        in selection: ItemSelection, _ change: BulkChange, progress: (@Sendable (BulkProgress) -> Void)?
    ) async throws -> BulkAction

    /// Undoes `action` (after `updateItems`, or after `redo`): each item it changed that is
    /// still as the action (or its last redo) left it, by version, gets its values before back
    /// (a deleted item comes back whole, with its ID, times and version); the others are
    /// skipped and counted.
    /// - Throws: `.notFound` when the action's record is gone (forgotten, or another
    ///   process's), `.conflict` when it is undone already.
    func undo(_ action: BulkAction) async throws -> BulkReplay

    /// Applies an undone `action` again to each item still as the undo left it; the others
    /// are skipped and counted.
    /// - Throws: `.notFound` when the record is gone, `.conflict` when it is not undone,
    ///   `.unknownUser` when the owner it gives items to was deleted.
    func redo(_ action: BulkAction) async throws -> BulkReplay

    /// Deletes the records of `actions` (the history dropped them); IDs with no record are
    /// ignored. Records older than a day are deleted too (a session that ended without).
    func forget(_ actions: [Int64]) async throws
}
