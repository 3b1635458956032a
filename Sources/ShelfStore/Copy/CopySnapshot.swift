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
///
/// The copier calls, in order: the reads it needs, `beginBulkLoad`, `deleteAll` (when
/// replacing), `insert` page by page, `advanceSequence`, `finishBulkLoad`, then reads every row
/// back; any throw rolls the whole transaction back.
package protocol CopyTransaction: CopySnapshot {
    /// Makes the rows that follow cheap to write: a backend may drop indexes and upkeep
    /// triggers of the copied tables here (inside the transaction), as long as
    /// `finishBulkLoad` makes everything again as the schema has it.
    func beginBulkLoad() throws
    /// Makes again what `beginBulkLoad` dropped (indexes, triggers), builds the search indexes
    /// over every row, and tells the store's live readers to read in full once (the rows went
    /// unlogged). Checks `isCancelled` between long steps.
    func finishBulkLoad(isCancelled: () -> Bool) throws
    /// The sessions or processes this transaction waited for before it could write (they were
    /// writing the target when the copy began), as the write-lock message names them; nil when
    /// it did not wait. A target that is not empty after such a wait was written meanwhile.
    var waitedFor: String? { get }
    /// Deletes every row of the copied tables.
    func deleteAll() throws
    /// Inserts `rows` into `table` with their IDs and every column as given.
    func insert(_ rows: [CopyRow], into table: CopyTable) throws
    /// Makes sure `table` hands out no ID at or below `id` from now on (where the backend
    /// has a sequence; a table whose next ID follows its highest needs nothing).
    func advanceSequence(of table: CopyTable, past id: Int64) throws
}
