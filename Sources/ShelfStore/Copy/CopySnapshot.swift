/// What a backend supplies so that `Store.copy(to:)` can read it as a source and write it as a
/// target. Every method blocks the calling thread (a thread of the copy's own, never a task).
///
/// Kept apart from `StoreBackend` so that a backend adds copying in files of its own; a
/// backend that does not conform cannot take part in a copy (`Store.copy(to:)` says so).
package protocol CopyableBackend: StoreBackend {
    /// Calls `body` with one consistent snapshot of the whole store (every table as of one
    /// moment), while other connections and processes go on writing. The snapshot ends when
    /// `body` returns or throws.
    func withCopySnapshot<T>(_ body: (any CopySnapshot) throws -> T) throws -> T

    /// Calls `body` inside one write transaction on this store, and commits when it returns;
    /// a throw (from `body` or the commit) rolls everything back, and so does a crash or a
    /// lost connection: the store is then as it was.
    func withCopyTransaction<T>(_ body: (any CopyTransaction) throws -> T) throws -> T

    /// Another process (or session) that has this store open, described for a person
    /// ("process 123 (shelf browse)", "application shelf, PID 456 on 127.0.0.1"); nil when
    /// none is found. Connections of this store object itself do not count.
    func otherUsers() throws -> String?

    /// Runs the engine's own checks of the stored data (SQLite: `integrity_check` and the
    /// full-text indexes' checks) and throws a `StoreError` (`.corrupt`) saying what is wrong.
    func checkIntegrity() throws

    /// An identity of the database itself (a file's device and inode, a server's database),
    /// equal for two stores only when they are the same database.
    var copyIdentity: String { get }
}

/// One consistent snapshot of a store, read a page at a time. Used by one thread.
package protocol CopySnapshot: AnyObject {
    /// The names of every table of the store's schema with their columns, so that a copy can
    /// refuse data it would not carry (`CopyTable.unknownColumns`).
    func schemaColumns() throws -> [String: [String]]
    /// What `schemaColumns` holds that is derived (indexes, counters, migration records):
    /// table names, or "table.column".
    var derivedColumns: Set<String> { get }
    /// How many rows `table` holds.
    func rowCount(_ table: CopyTable) throws -> Int
    /// The highest ID `table` has handed out (its sequence), at least the highest ID it holds;
    /// 0 when none.
    func lastID(_ table: CopyTable) throws -> Int64
    /// Up to `limit` rows of `table` with IDs above `id`, by ID, every column of
    /// `table.columns`. Throws, naming the row, when a value is not of its column's kind.
    func rows(_ table: CopyTable, after id: Int64, limit: Int) throws -> [CopyRow]
}

/// The write transaction of a copy into a store. Used by one thread.
package protocol CopyTransaction: CopySnapshot {
    /// Deletes every row of the copied tables.
    func deleteAll() throws
    /// Inserts `rows` into `table` with their IDs and every column as given.
    func insert(_ rows: [CopyRow], into table: CopyTable) throws
    /// Makes sure `table` hands out no ID at or below `id` from now on (where the backend
    /// has a sequence; a table whose next ID follows its highest needs nothing).
    func advanceSequence(of table: CopyTable, past id: Int64) throws
}
