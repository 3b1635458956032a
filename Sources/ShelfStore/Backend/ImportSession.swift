package import Foundation
internal import ShelfReactive

/// The rows of one import, read and checked while no lock on shared tables is held, then
/// applied in one short transaction.
///
/// Used by one thread at a time (the import's), which may block; not `Sendable`. Every
/// method blocks, so never call one from a task. Call `close()` at the end.
package protocol ImportSession: AnyObject {
    /// Stages a user read from the input; `record` is the input's record, for messages and
    /// rejects files.
    func stage(_ user: ImportedUser, record: Data) throws
    /// Stages an item read from the input.
    func stage(_ item: ImportedItem, record: Data) throws
    /// Records a row refused while it was read, in input order with the staged rows; `key` is
    /// what the row names, which `replace` then keeps (see `ImportRowKey`).
    func reject(
        record: Data, line: Int?, column: Int?, field: String?, value: String?, reason: String, key: ImportRowKey
    ) throws
    /// The ID of the user with `email` now (letter case ignored), or nil.
    func userID(email: String) throws -> Int64?

    /// Writes every staged row in one transaction.
    /// - Parameters:
    ///   - mode: how existing rows are treated.
    ///   - commit: false for a dry run: everything is checked and written, then rolled back.
    ///   - continues: true to record rows the store refuses as rejects and go on; false to
    ///     throw `ImportRowFailure` for the first one (nothing is written).
    ///   - isCancelled: asked between statements; true rolls back and throws
    ///     `CancellationError`.
    ///   - willCommit: asked just before the commit; false rolls back and throws
    ///     `CancellationError`.
    ///   - beforeEnd: called inside the transaction, just before it commits or rolls back,
    ///     while the rejects can be read: whatever must be done before the import is final
    ///     (writing the rejects file), so that its failure still leaves the store unchanged.
    /// - Returns: the counts; deleted rows are counted in `replace` mode.
    func apply(
        mode: ImportMode, commit: Bool, continues: Bool, isCancelled: () -> Bool, willCommit: () -> Bool,
        beforeEnd: (any ImportSession) throws -> Void
    ) throws -> ImportCounts

    /// The record staged as `seq`, or nil.
    func record(seq: Int64) throws -> Data?

    /// Calls `body` with every reject (refused while read, or by the store during `apply`) in
    /// input order, until it returns false. Valid from `apply`'s `beforeEnd`.
    func forEachReject(_ body: (ImportReject) throws -> Bool) throws

    /// What a `replace` would delete if it were applied now: the rows of the table the input
    /// neither names nor protects, and (users) the items deleted with them. Read without a
    /// write lock; `apply` may find other rows if other writers commit meanwhile (see
    /// `ImportCounts.itemsDeletedWithUsers` and `limitItemDeletions(to:)`). Names the owners
    /// of the items it would delete (`ImportCounts.deletedItemOwners`).
    func replacePreview() throws -> ImportCounts

    /// Makes `apply` fail, writing nothing, when a `replace` would delete more than `count`
    /// items (more than a person agreed to): the items the input lacks (a `replace` of items),
    /// or the items deleted with the users it lacks (of users). Throws `ImportDeletionsGrew`.
    func limitItemDeletions(to count: Int)

    /// Drops the staged rows. Safe to call more than once.
    func close()
}

/// What a row that was not written (skipped while read, or refused by the store) names, so
/// that `replace` does not delete it: a skipped row keeps the row it meant.
///
/// - `id`: the row's ID, when it can be read (items and users).
/// - `email`: a user row's email as written (trimmed), even when it is not a valid email; the
///   user with exactly that email (letter case ignored) is kept.
/// - `isUnreadable`: the row names something that cannot be read (an ID that is not a whole
///   number, a users row with no readable ID and no usable email, a row with the wrong number
///   of fields): it might mean any row, so `replace` deletes nothing at all.
package struct ImportRowKey: Sendable, Equatable {
    package var id: Int64?
    package var email: String?
    package var isUnreadable: Bool

    package init(id: Int64? = nil, email: String? = nil, isUnreadable: Bool = false) {
        self.id = id
        self.email = email
        self.isUnreadable = isUnreadable
    }

    /// A row that names nothing (a new item without an ID): it keeps nothing.
    package static let none = ImportRowKey()
}

/// Thrown by `apply` when a `replace` would delete more items than the limit set by
/// `limitItemDeletions(to:)`; nothing was written.
package struct ImportDeletionsGrew: Error, Sendable {
    /// The items it would delete now.
    package let items: Int
    /// The limit agreed to.
    package let limit: Int

    package init(items: Int, limit: Int) {
        self.items = items
        self.limit = limit
    }
}

/// A staged row the store refused, or a row refused while it was read.
package struct ImportReject: Sendable {
    /// The row's place in the input's order (1, 2, …).
    package var seq: Int64
    /// The record as the importer encoded it.
    package var record: Data
    /// True when the importer refused the row (the place fields are set); false when the
    /// store did (`field` names the field to blame, when one is).
    package var placed: Bool
    package var line: Int?
    package var column: Int?
    package var field: String?
    package var value: String?
    package var reason: String

    package init(
        seq: Int64, record: Data, placed: Bool, line: Int?, column: Int?, field: String?, value: String?,
        reason: String
    ) {
        self.seq = seq
        self.record = record
        self.placed = placed
        self.line = line
        self.column = column
        self.field = field
        self.value = value
        self.reason = reason
    }
}

/// A staged row the store refused while `apply` ran without `continues`.
package struct ImportRowFailure: Error {
    /// The row's place in the input's order.
    package let seq: Int64
    /// Why the store refused it, naming the field to blame.
    package let error: ImportRowError

    package init(seq: Int64, error: ImportRowError) {
        self.seq = seq
        self.error = error
    }
}

/// What happened to one row an import wrote, on any backend.
package enum ImportRowOutcome: Sendable {
    case inserted, updated, unchanged
}

/// What an import's `apply` did.
package struct ImportCounts: Sendable, Equatable {
    package var inserted = 0
    package var updated = 0
    package var unchanged = 0
    package var deleted = 0
    /// Staged rows the store refused (recorded as rejects).
    package var refused = 0
    /// In a `replace` of users: the items deleted with the deleted users (`deleted` counts
    /// users).
    package var itemsDeletedWithUsers = 0
    /// In a `replace`: the place (`seq`) of the first skipped row whose key cannot be read;
    /// when set, nothing was deleted (see `ImportRowKey.isUnreadable`).
    package var deletionsWithheldBy: Int64?
    /// From `replacePreview()`: the owners of the items the `replace` would delete (the items
    /// the input lacks, or the items of the users it lacks), most items first, at most
    /// `ItemOwnerCount.shownLimit` of them; `itemOwners` counts them all.
    package var deletedItemOwners: [ItemOwnerCount] = []
    /// From `replacePreview()`: how many users own the items the `replace` would delete.
    package var itemOwners = 0
    /// From `replacePreview()` of users: the saved views owned by a user it would delete (they
    /// would show everyone's items), in name order.
    package var widenedViews: [WidenedView] = []

    package init() {}

    /// Counts one row written row by row.
    package mutating func add(_ outcome: ImportRowOutcome) {
        switch outcome {
        case .inserted: inserted += 1
        case .updated: updated += 1
        case .unchanged: unchanged += 1
        }
    }

    /// The items deleted by a `replace` of `table`: those the input lacks (items), or those
    /// deleted with the users it lacks (users).
    package func itemsDeleted(from table: ImportTable) -> Int {
        table == .users ? itemsDeletedWithUsers : deleted
    }
}

/// An owner, by email, and how many of their items an import would delete.
package struct ItemOwnerCount: Sendable, Equatable {
    package var email: String
    package var items: Int

    package init(email: String, items: Int) {
        self.email = email
        self.items = items
    }

    /// How many owners `replacePreview()` names; the rest are counted.
    package static let shownLimit = 3
}

/// A saved view, by name, that shows one user's items (its owner, by email).
package struct WidenedView: Sendable, Equatable {
    package var name: String
    package var owner: String

    package init(name: String, owner: String) {
        self.name = name
        self.owner = owner
    }
}

/// The tables an import writes.
package enum ImportTable: String, Sendable {
    case users, items
}
