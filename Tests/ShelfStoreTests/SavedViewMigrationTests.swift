import Foundation
import ShelfReactive
import ShelfSQLite
import ShelfTestSupport
import Testing

@testable import ShelfSQLiteBackend
@testable import ShelfStore

/// Migration 0003_saved_views on SQLite: a shelf made by the previous version upgrades, the
/// new table is change-tracked, and the embedded SQL is the file's.
@Suite("Saved views: SQLite migration")
struct SavedViewMigrationTests {
    private static let migrations = SQLiteBackend.migrator.plan.migrations

    /// A shelf file as the previous version (migrations 0001 and 0002) left it, with a user
    /// and an item.
    private static func previousVersionShelf() throws -> (path: String, folder: URL) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("views-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent("old.sqlite").path
        let database = try Database(path: path, readerCount: 1)
        let previous = SQLiteMigrator(
            plan: MigrationPlan(migrations: migrations.filter { $0.name < "0003" }, folder: "Migrations"))
        #expect(try previous.migrate(database) == ["0001_create_users_and_items", "0002_change_counters"])
        try database.write { connection in
            try connection.run("INSERT INTO users (name, email, created_at) VALUES ('Ann', 'ann@example.com', 0)")
            try connection.run(
                "INSERT INTO items (user_id, title, created_at, updated_at) VALUES (1, 'Kept', 0, 0)")
        }
        return (path, folder)
    }

    @Test func aShelfOfThePreviousVersionUpgrades() async throws {
        let (path, folder) = try Self.previousVersionShelf()
        defer { try? FileManager.default.removeItem(at: folder) }
        let sqlite = try SQLiteBackend.open(path: path)
        let store = Store(sqlite: sqlite)
        #expect(
            store.appliedMigrations.first == "0003_saved_views", "the migrations after 0002 are applied, from 0003 on")
        #expect(try await store.items.count(matching: ItemQuery()) == 1, "existing rows kept")
        let counters = try await sqlite.database.read { connection in
            try connection.fetch("SELECT table_name, row_count FROM shelf_changes ORDER BY table_name") {
                "\(try $0.string(0)) \(try $0.int64(1))"
            }
        }
        #expect(counters == ["items 1", "saved_views 0", "users 1"])

        let live = try await store.liveSavedViews()
        let saved = try await store.views.save(NewSavedView(name: "Kept items", queryText: "kept", owner: User.ID(1)))
        #expect(await eventually { live.value.success == [saved] })
        let rows = try await sqlite.database.read { connection in
            try connection.fetchOne("SELECT row_count FROM shelf_changes WHERE table_name = 'saved_views'") {
                try $0.int64(0)
            }
        }
        #expect(rows == 1, "the triggers count the new table's rows")
        #expect(try Store(path: path).appliedMigrations.isEmpty, "reopening applies nothing")
    }

    /// A commit by another process (the sqlite3 shell) to saved_views reaches a live list.
    @Test func aViewWrittenByAnotherProcessReachesTheLiveList() async throws {
        let fixture = try await Fixture()
        let path = try #require(fixture.store.path)
        let live = try await fixture.store.liveSavedViews()
        #expect(live.value.success == [])
        let shell = try SQLiteShell(path: path)
        defer { shell.finish() }
        try await shell.run(
            """
            INSERT INTO saved_views (name, name_key, query_text, sort_field, sort_direction, created_at, updated_at)
            VALUES ('From the shell', 'from the shell', 'x', 'title', 'ascending', 0, 0);
            """)
        #expect(await eventually { live.value.success?.map(\.name) == ["From the shell"] })
    }

    /// The embedded SQL is the SQL of Migrations/*.sql, byte for byte, and a store records
    /// each migration's checksum.
    @Test func embeddedMigrationsAreTheFilesAndTheirChecksumsAreRecorded() async throws {
        let folder = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appending(path: "Migrations")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            .filter { $0.hasSuffix(".sql") }.sorted()
        #expect(files.map { String($0.dropLast(4)) } == Self.migrations.map(\.name))
        #expect(files.contains("0003_saved_views.sql"))
        for (file, migration) in zip(files, Self.migrations) {
            let sql = try String(contentsOf: folder.appending(path: file), encoding: .utf8)
            #expect(sql == migration.sql, "\(file) differs from the embedded SQL")
        }
        let sqlite = try SQLiteBackend.temporary()
        let recorded = try await sqlite.database.read { connection in
            try connection.fetch("SELECT name || ' ' || checksum FROM shelf_migrations ORDER BY name") {
                try $0.string(0)
            }
        }
        #expect(recorded == Self.migrations.map { "\($0.name) \($0.checksum)" })
    }
}
