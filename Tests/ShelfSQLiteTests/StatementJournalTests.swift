import Foundation
import ShelfSQLite
import Testing

/// Statements inside a write transaction journal the pages they change (a statement
/// journal), so that one that fails is undone alone. Hostile round 16: with the journal kept in
/// memory up to 4 MiB (`SQLITE_CONFIG_STMTJRNL_SPILL`), the system's SQLite failed every
/// statement whose journal grew past that with "database or disk is full" on a disk with room:
/// a bulk change of 50,000 items, removing a user with 2,000 items, an import of 50,000 rows.
/// (Any threshold of 128 KiB or more does: the spill is written in one call, which SQLite's
/// Unix layer cuts to 0x1ffff bytes.)
@Suite("Statement journals")
struct StatementJournalTests {
    /// One-row writes keep their journal in memory (`Connection.statementJournalSpill`).
    @Test func theSpillThresholdIsSetBeforeTheFirstConnection() throws {
        _ = try Database.temporary()
        #expect(statementJournalConfigured, "SQLite was initialized before Shelf could configure it")
    }

    /// A table of `rows` rows of 2,000 bytes, indexed on the text.
    func database(rows: Int) throws -> Database {
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
        return database
    }

    /// A statement that rewrites every page of a 6 or 40 MB table, after another in the same
    /// transaction: its journal goes far past any size kept in memory, and it commits.
    @Test(arguments: [3_000, 20_000])
    func aStatementWithAJournalOfManyMegabytesCommits(rows: Int) throws {
        let database = try database(rows: rows)
        try database.write { connection in
            try connection.run("UPDATE t SET v = 'first' WHERE id = 1")
            try connection.run("UPDATE t SET v = printf('%.2000c', 'b') WHERE id > 1")
        }
        let counts = try database.read { connection in
            try connection.fetchOne("SELECT count(*), sum(v = 'first') FROM t WHERE v GLOB 'b*' OR v = 'first'") {
                (try $0.get(0, as: Int.self), try $0.get(1, as: Int.self))
            }
        }
        #expect(counts?.0 == rows)
        #expect(counts?.1 == 1)
    }

    /// A statement inside a transaction that changed far more pages than are kept in memory
    /// before it failed (on the constraint, nothing else) is undone alone; the statement before
    /// it in the same transaction stays.
    @Test(arguments: [300, 3_000])
    func aFailedStatementIsUndoneAloneInsideItsTransaction(rows: Int) throws {
        let database = try database(rows: rows)
        try database.write { connection in
            try connection.run("UPDATE t SET v = 'kept' WHERE id = 1")
            // Rewrites every row (every page of the table and its index), then fails on the
            // last one: w = 1 is taken.
            #expect {
                try connection.run(
                    "UPDATE t SET v = printf('%.2000c', 'b'), w = CASE WHEN id = ? THEN 1 ELSE w END", rows)
            } throws: { error in
                (error as? DatabaseError)?.extendedCode == DatabaseError.uniqueConstraint
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
