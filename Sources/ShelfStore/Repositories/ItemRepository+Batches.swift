// The checks and errors of batch writes, the same on every backend.

extension ItemRepository {
    /// Refuses IDs given twice and, with `text`, titles and notes the store may not hold
    /// (`TextLimits`), before any transaction.
    package static func checkBatch(_ items: [Item], text: Bool = true) throws {
        var seen = Set<Item.ID>()
        seen.reserveCapacity(items.count)
        for item in items {
            if text { try TextLimits.check(title: item.title, notes: item.notes, subject: "item \(item.id)") }
            guard seen.insert(item.id).inserted else {
                throw StoreError(
                    .invalidValue,
                    "item \(item.id) is given twice in one batch; pass each item once; nothing was written")
            }
        }
    }

    /// The error for an item whose optimistic check failed: `.notFound` when `storedVersion` is
    /// nil (it was deleted), else `.conflict`.
    package static func staleError(_ item: Item, storedVersion: Int64?) -> StoreError {
        guard let storedVersion else {
            return StoreError(
                .notFound, "item \(item.id) does not exist (it may have been deleted); reload it; nothing was saved")
        }
        return StoreError(
            .conflict,
            "item \(item.id) was changed elsewhere (you had version \(item.version), the store has version "
                + "\(storedVersion)); reload it and apply your change again; nothing was saved")
    }

    /// The error for restoring an item whose ID exists.
    package static func existsError(_ item: Item) -> StoreError {
        StoreError(
            .conflict,
            "item \(item.id) cannot be restored: an item with that ID exists (it was restored or changed "
                + "elsewhere); nothing was restored")
    }

    /// The error for restoring an item whose owner was deleted.
    package static func ownerGoneError(_ item: Item) -> StoreError {
        StoreError(
            .unknownUser,
            "item \(item.id) cannot be restored: its owner (user \(item.userID)) no longer exists; "
                + "nothing was restored")
    }
}
