/// The values of an item that a live query's filters and sort orders read, as a change log
/// records them before or after a change: everything but the notes, the version and the ID.
///
/// Times are milliseconds since 1970, as stored.
package struct ItemImage: Hashable, Sendable {
    package var userID: User.ID
    package var status: Item.Status
    package var priority: Int
    package var createdAt: Int64
    package var updatedAt: Int64
    package var title: String

    package init(userID: User.ID, status: Item.Status, priority: Int, createdAt: Int64, updatedAt: Int64, title: String)
    {
        self.userID = userID
        self.status = status
        self.priority = priority
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.title = title
    }

    /// The image of a stored item.
    package init(_ item: Item) {
        self.init(
            userID: item.userID, status: item.status, priority: item.priority,
            createdAt: TimeFormat.milliseconds(since1970: item.createdAt),
            updatedAt: TimeFormat.milliseconds(since1970: item.updatedAt), title: item.title)
    }
}

/// One row change of the items table, as a backend's change log records it (or several
/// consecutive changes of one row, merged by `ItemChange.net`).
///
/// An insert has no `before`, a delete no `after`. A REPLACE that overwrote a row is a delete
/// followed by an insert; an update that moved a row to another ID, a delete of the old ID and
/// an insert of the new one.
package struct ItemChange: Hashable, Sendable {
    /// The log sequence number of the change (of the last one, for a merged change).
    package var sequence: Int64
    package var id: Item.ID
    package var before: ItemImage?
    package var after: ItemImage?
    /// Whether the title or the notes may differ between `before` and `after` (always true
    /// for inserts and deletes): when false, a word or substring search matches the row after
    /// exactly when it matched before.
    package var textChanged: Bool

    package init(sequence: Int64, id: Item.ID, before: ItemImage?, after: ItemImage?, textChanged: Bool) {
        self.sequence = sequence
        self.id = id
        self.before = before
        self.after = after
        self.textChanged = textChanged || before == nil || after == nil
    }

    /// The changes merged per row, in the order each row first changed: each row's state
    /// before its first change and after its last. `changes` must be in sequence order.
    package static func net(_ changes: some Sequence<ItemChange>) -> [ItemChange] {
        var order: [Item.ID] = []
        var merged: [Item.ID: ItemChange] = [:]
        for change in changes {
            guard var existing = merged[change.id] else {
                order.append(change.id)
                merged[change.id] = change
                continue
            }
            existing.sequence = change.sequence
            existing.after = change.after
            existing.textChanged = existing.textChanged || change.textChanged
            merged[change.id] = existing
        }
        return order.compactMap { merged[$0] }
    }
}

/// The changes a backend's change log holds after a position, read in one snapshot.
package struct LiveChangeBatch: Sendable {
    /// The position the batch starts after (exclusive).
    package var after: Int64
    /// The log's last sequence number in the snapshot the batch was read in.
    package var through: Int64
    /// The item changes, in sequence order.
    package var items: [ItemChange]
    /// The sequence numbers of user changes (inserts, updates, deletes), in order.
    package var userChanges: [Int64]
    /// True when the log no longer holds every change after `after` (pruned, or reset): a
    /// live value at or before `after` must be read in full.
    package var incomplete: Bool

    package init(after: Int64, through: Int64, items: [ItemChange], userChanges: [Int64], incomplete: Bool) {
        self.after = after
        self.through = through
        self.items = items
        self.userChanges = userChanges
        self.incomplete = incomplete
    }

    /// The item changes after `position` (which must be at or after `after`), merged per row.
    package func netItemChanges(after position: Int64) -> [ItemChange] {
        ItemChange.net(items.lazy.filter { $0.sequence > position })
    }

    /// Whether a user changed after `position`.
    package func usersChanged(after position: Int64) -> Bool {
        userChanges.last.map { $0 > position } ?? false
    }
}
