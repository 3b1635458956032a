import Foundation
import ShelfSQLite
import Testing

@testable import ShelfSQLiteBackend
@testable import ShelfStore

/// The SQLite migrator over a plan of `migrations`.
private func migrator(_ migrations: [SchemaMigration]) -> SQLiteMigrator {
    SQLiteMigrator(plan: MigrationPlan(migrations: migrations, folder: "Migrations"))
}

@Suite("SQLite migrator")
struct SQLiteMigratorTests {
    let database: Database
    let first = SchemaMigration(name: "0001_a", sql: "CREATE TABLE a (x INTEGER);")
    let second = SchemaMigration(name: "0002_b", sql: "CREATE TABLE b (y INTEGER); INSERT INTO b VALUES (1);")

    init() throws {
        database = try Database.temporary()
    }

    func tables() throws -> [String] {
        try database.read {
            try $0.fetch("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name") {
                try $0.get(0, as: String.self)
            }
        }
    }

    @Test func appliesInOrderAndRecordsChecksums() throws {
        let applied = try migrator([second, first]).migrate(database)
        #expect(applied == ["0001_a", "0002_b"])
        #expect(try tables() == ["a", "b", "shelf_migrations"])
        let recorded = try database.read {
            try $0.fetch("SELECT name, checksum FROM shelf_migrations ORDER BY name") {
                "\(try $0.get(0, as: String.self)) \(try $0.get(1, as: String.self))"
            }
        }
        #expect(recorded == ["0001_a \(first.checksum)", "0002_b \(second.checksum)"])
    }

    @Test func isIdempotent() throws {
        try migrator([first, second]).migrate(database)
        #expect(try migrator([first, second]).migrate(database) == [])
        let rows = try database.read { try $0.fetchOne("SELECT count(*) FROM b") { try $0.get(0, as: Int.self) } }
        #expect(rows == 1)
    }

    @Test func appliesOnlyNewMigrations() throws {
        try migrator([first]).migrate(database)
        #expect(try migrator([first, second]).migrate(database) == ["0002_b"])
    }

    @Test func refusesADatabaseFromANewerVersion() throws {
        try migrator([first, second]).migrate(database)
        let error = #expect(throws: StoreError.self) { try migrator([first]).migrate(database) }
        #expect(error?.message.contains("newer version of shelf") == true)
        #expect(error?.message.contains("0002_b") == true)
        let status = try migrator([first]).status(database)
        #expect(status.map(\.name) == ["0001_a", "0002_b"])
        if case .unknown = status[1].state {} else { Issue.record("0002_b should be unknown, got \(status[1].state)") }
    }

    @Test func refusesAnEditedMigrationAndChangesNothing() throws {
        try migrator([first]).migrate(database)
        let edited = SchemaMigration(name: "0001_a", sql: "CREATE TABLE a (x INTEGER, z TEXT);")
        let error = #expect(throws: StoreError.self) {
            try migrator([edited, second]).migrate(database)
        }
        #expect(error?.message.contains("0001_a was changed") == true)
        #expect(try tables() == ["a", "shelf_migrations"], "0002_b must not be applied after a refusal")
    }

    @Test func aFailingMigrationIsRolledBackAndNamed() throws {
        let broken = SchemaMigration(name: "0002_broken", sql: "CREATE TABLE c (x); CREATE TABLE nonsense (;")
        let error = #expect(throws: StoreError.self) {
            try migrator([first, broken]).migrate(database)
        }
        #expect(error?.message.contains("0002_broken") == true)
        #expect(try tables() == ["a", "shelf_migrations"], "the half-run migration is rolled back")
        let status = try migrator([first, broken]).status(database)
        #expect(status.map(\.state) == [status[0].state, .pending])
    }

    @Test func statusOfAFreshDatabaseIsAllPending() throws {
        let status = try migrator([first, second]).status(database)
        #expect(status.map(\.state) == [.pending, .pending])
        #expect(try tables() == [], "status changes nothing")
    }

    @Test func checksumDependsOnEveryByte() {
        #expect(first.checksum != SchemaMigration(name: "0001_a", sql: first.sql + " ").checksum)
        #expect(first.checksum.count == 16)
    }
}

@Suite("SQLite migrator across processes")
struct ConcurrentMigrationTests {
    @Test func twoOpenersOfANewDatabaseMigrateItOnce() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("migrate-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("db.sqlite").path
        let migrations = (1...20).map {
            SchemaMigration(name: String(format: "%04d_t", $0), sql: "CREATE TABLE t\($0) (x);")
        }
        // Separate Database objects: separate connections, as two processes would have.
        let applied = try await withThrowingTaskGroup(of: [String].self) { group in
            for _ in 0..<4 {
                group.addTask { try migrator(migrations).migrate(try Database(path: path, readerCount: 1)) }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        #expect(applied.sorted() == migrations.map(\.name), "each migration applied exactly once")
    }
}
