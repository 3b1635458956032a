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
