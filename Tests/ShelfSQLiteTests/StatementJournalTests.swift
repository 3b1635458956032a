import Foundation
import Testing

@testable import ShelfSQLite

/// Statement journals are kept in memory up to `Connection.statementJournalSpill` (a one-row
/// write into `items` made, wrote and deleted a temporary file with SQLite's 64 KiB).
@Suite("Statement journals")
struct StatementJournalTests {
    @Test func theSpillThresholdIsSetBeforeTheFirstConnection() throws {
        _ = try Database.temporary()
        #expect(statementJournalConfigured, "SQLite was initialized before Shelf could configure it")
    }

    /// A statement inside a transaction that changed far more pages than SQLite's default
    /// 64 KiB before it failed is undone alone, from the journal in memory; the statement
    /// before it in the same transaction stays, and so does a big journal that spills past
    /// the threshold.
    @Test(arguments: [300, 3_000])
    func aFailedStatementIsUndoneAloneInsideItsTransaction(rows: Int) throws {
        let database = try Database.temporary()
        try database.write { connection in
            try connection.execute(
                """
                CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL, w INTEGER UNIQUE);
                CREATE INDEX t_v ON t (v);
                """)
            try connection.run(
                """
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
                INSERT INTO t (id, v, w) SELECT i, printf('%.2000c', 'a'), i FROM n
                """, rows)
        }
        try database.write { connection in
            try connection.run("UPDATE t SET v = 'kept' WHERE id = 1")
            // Rewrites every row (every page of the table and its index), then fails on the
            // last one: w = 1 is taken.
            #expect(throws: DatabaseError.self) {
                try connection.run(
                    "UPDATE t SET v = printf('%.2000c', 'b'), w = CASE WHEN id = ? THEN 1 ELSE w END", rows)
            }
        }
        let values = try database.read { connection in
            try connection.fetch("SELECT v FROM t ORDER BY id") { try $0.get(0, as: String.self) }
        }
        #expect(values.count == rows)
        #expect(values.first == "kept")
        #expect(values.dropFirst().allSatisfy { $0.first == "a" && $0.count == 2000 })
    }
}
