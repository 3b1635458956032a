/// What a copy (`Store.copy(to:options:progress:)`) found on each side: the rows of each
/// table and a fingerprint over every copied column.
public struct CopyReport: Sendable, Hashable {
    /// One side of the copy.
    public struct Side: Sendable, Hashable {
        /// Rows per table, in copy order (users, items, saved views).
        public let counts: [TableCount]
        /// SHA-256 over every copied column of every row, as 64 hexadecimal digits: equal on
        /// two sides exactly when they hold the same rows, byte for byte.
        public let fingerprint: String
    }

    /// The rows of one table.
    public struct TableCount: Sendable, Hashable {
        /// The table's name (`users`, `items`, `saved_views`).
        public let table: String
        /// How many rows it holds.
        public let rows: Int
    }

    /// The source's snapshot, as read.
    public let source: Side
    /// The target, read back inside the copy's transaction before it committed.
    public let target: Side

    /// The target's search indexes that a copy by pages found damaged, as the source's were
    /// (the pages carry them as they are), and built again from the copied rows.
    package var searchIndexRepairs: [SearchIndexRepair] = []

    package init(source: Side, target: Side) {
        self.source = source
        self.target = target
    }

    /// True when both sides hold the same rows: the copy was committed. False when they
    /// differ: the copy was rolled back, and the target is as it was before.
    public var matches: Bool { source == target }
}

/// A search index of a copy that was damaged (as its source's is) and was built again.
package struct SearchIndexRepair: Sendable, Hashable {
    /// The FTS5 table, such as `items_fts`.
    package let index: String
    /// What was wrong with it: "FTS5 integrity-check: …", or the rows it indexed.
    package let problem: String

    package init(index: String, problem: String) {
        self.index = index
        self.problem = problem
    }
}

/// Options of `Store.copy(to:options:progress:)`.
public struct CopyOptions: Sendable, Hashable {
    /// Replace what the target holds (in the copy's one transaction) instead of refusing a
    /// target that is not empty. Refused while another process has the target open.
    public var replace: Bool

    /// What the copy is done for, so that its messages speak of that: a copy between stores,
    /// or a restore from a backup file (whose rows a person corrects in the backup).
    package enum Purpose: Sendable, Hashable {
        case copy
        case restore(backup: String)
    }

    /// What the copy is done for (a copy unless said otherwise).
    package var purpose: Purpose = .copy

    /// Options with `replace` as given (default: refuse a target that is not empty).
    public init(replace: Bool = false) {
        self.replace = replace
    }
}

/// How far a copy has come, reported as it writes.
public struct CopyProgress: Sendable, Hashable {
    /// The table being copied.
    public let table: String
    /// Rows written so far, all tables together.
    public let copiedRows: Int
    /// Rows in the source's snapshot, all tables together.
    public let totalRows: Int
    /// True once every row is written and the target is being checked (read back).
    public let checking: Bool

    package init(table: String, copiedRows: Int, totalRows: Int, checking: Bool) {
        self.table = table
        self.copiedRows = copiedRows
        self.totalRows = totalRows
        self.checking = checking
    }
}
