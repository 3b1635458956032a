import Foundation
import Synchronization
import Testing

@testable import ShelfSQLite

/// Live queries and the change tracker on their own, over a schema of the test's making: two
/// tables with change counters kept by triggers in a table whose name the database is given,
/// and one table without counters.
@Suite("Live queries over a Database")
struct DatabaseLiveQueryTests {
    /// A schema like Shelf's, under other names: `counts` holds a counter per table, bumped
    /// by statement triggers on `a` and `b`; `plain` has none.
    static let schema = """
        CREATE TABLE counts (table_name TEXT PRIMARY KEY, counter INTEGER NOT NULL);
        INSERT INTO counts VALUES ('a', 0), ('b', 0);
        CREATE TABLE a (x INTEGER);
        CREATE TABLE b (x INTEGER);
        CREATE TABLE plain (x INTEGER);
        CREATE TRIGGER a_insert AFTER INSERT ON a BEGIN
            UPDATE counts SET counter = counter + 1 WHERE table_name = 'a';
        END;
        CREATE TRIGGER b_insert AFTER INSERT ON b BEGIN
            UPDATE counts SET counter = counter + 1 WHERE table_name = 'b';
        END;
        """

    /// A database with the schema, telling the tracker about `counters` (nil: none).
    func makeDatabase(counters: String? = "counts") throws -> Database {
        let database = try Database.temporary(changeCounters: counters)
        try database.write { try $0.execute(Self.schema) }
        return database
    }

    /// Waits until the tracker has handled everything queued before this call.
    func settle(_ database: Database) async {
        await withCheckedContinuation { continuation in
            database.changeTracker.enqueue { continuation.resume() }
        }
    }

    func countOfA(_ database: Database) throws -> LiveQuery<Int64> {
        try LiveQuery(database: database) { connection in
            try connection.fetchOne("SELECT count(*) FROM a") { try $0.int64(0) } ?? 0
        }
    }

    @Test func onlyCommitsThatMoveTheQuerysCountersRunItAgain() async throws {
        let database = try makeDatabase()
        let query = try countOfA(database)
        #expect(query.runCount == 1)
        #expect(query.observedTables == ["a"])

        try await database.write { try $0.execute("INSERT INTO b VALUES (1)") }
        await settle(database)
        #expect(query.runCount == 1, "a commit to another counted table")

        try await database.write { try $0.execute("INSERT INTO plain VALUES (1)") }
        await settle(database)
        #expect(query.runCount == 1, "a commit to a table without counters")

        #expect(throws: DatabaseError.self) {
            try database.write { connection in
                try connection.execute("INSERT INTO a VALUES (1)")
                try connection.execute("INSERT INTO nowhere VALUES (1)")
            }
        }
        await settle(database)
        #expect(query.runCount == 1, "a rolled-back transaction")

        try await database.write { connection in
            for value in 0..<1000 { try connection.run("INSERT INTO a VALUES (?)", Int64(value)) }
        }
        await settle(database)
        #expect(query.runCount == 2, "1,000 inserts in one transaction: one run")
        #expect(query.value == 1000)
    }

    @Test func theCounterTableIsTheOneNamedNotShelfs() async throws {
        // A table called shelf_changes exists, but the database was told of `counts`.
        let database = try makeDatabase()
        try await database.write {
            try $0.execute("CREATE TABLE shelf_changes (table_name TEXT PRIMARY KEY, counter INTEGER NOT NULL)")
        }
        let query = try countOfA(database)
        try await database.write { try $0.execute("INSERT INTO b VALUES (1)") }
        await settle(database)
        #expect(query.runCount == 1)
        try await database.write { try $0.execute("INSERT INTO a VALUES (1)") }
        await settle(database)
        #expect(query.runCount == 2)
    }

    @Test func withoutCountersEveryCommitConcernsEveryQuery() async throws {
        let database = try makeDatabase(counters: nil)
        let query = try countOfA(database)
        try await database.write { try $0.execute("INSERT INTO b VALUES (1)") }
        await settle(database)
        // At least once more (a file event for the same commit may add a run under load: with
        // no counters, nothing tells it apart from another process's commit).
        #expect(query.runCount >= 2, "nothing says which tables changed, so the query runs")
        #expect(query.value == 0)
    }

    @Test func anotherConnectionsCommitIsSeenThroughTheFile() async throws {
        let database = try makeDatabase()
        let path = try #require(database.path)
        let query = try countOfA(database)
        let published = Mutex<[Int64]>([])
        query.start(from: query.value) { outcome in
            if case .value(let value) = outcome { published.withLock { $0.append(value) } }
        }
        // A second Database on the file stands for another process: its commit reaches this
        // one only through file events and the counters.
        let other = try Database(path: path, readerCount: 1, changeCounters: "counts")
        try await other.write { try $0.execute("INSERT INTO a VALUES (7)") }
        let deadline = ContinuousClock.now + .seconds(120)
        while published.withLock({ $0 }) != [1], ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(2))
        }
        #expect(published.withLock { $0 } == [1])
        try await other.write { try $0.execute("INSERT INTO b VALUES (7)") }
        try await Task.sleep(for: .milliseconds(100))
        await settle(database)
        #expect(query.runCount == 2, "the other connection's commit to b ran nothing here")
    }

    @Test func anEqualResultIsNotPublished() async throws {
        let database = try makeDatabase()
        let query = try LiveQuery(database: database) { connection in
            try connection.fetchOne("SELECT count(*) > 0 FROM a") { try $0.int64(0) } ?? 0
        }
        let published = Mutex<[Int64]>([])
        query.start(from: query.value) { outcome in
            if case .value(let value) = outcome { published.withLock { $0.append(value) } }
        }
        for _ in 0..<3 {
            try await database.write { try $0.execute("INSERT INTO a VALUES (1)") }
            await settle(database)
        }
        #expect(query.runCount == 4)
        #expect(published.withLock { $0 } == [1], "three runs, one change of the result")
    }
}
