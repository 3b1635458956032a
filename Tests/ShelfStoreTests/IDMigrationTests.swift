import Foundation
import ShelfSQLite
import Testing

@testable import ShelfSQLiteBackend
@testable import ShelfStore

/// Migration 0015_ids_never_reused on SQLite: users, saved views, API tokens and bulk actions
/// are made again with AUTOINCREMENT, keeping every row, ID, version, foreign key, index,
/// trigger and the full-text index; and a restore keeps the ID sequences ahead.
@Suite("IDs never reused: SQLite migration")
struct IDMigrationTests {
    private static let migrations = SQLiteBackend.migrator.plan.migrations

    /// Every row of the tables 0015 makes again, and of items, as text, by ID.
    private static func dump(_ connection: Connection) throws -> [String] {
        var rows: [String] = []
        for (table, columns) in [
            ("users", "id, name, email, created_at, email_key"),
            ("items", "id, user_id, title, notes, status, priority, created_at, updated_at, version"),
            ("saved_views", "id, name, name_key, query_text, sort_field, sort_direction, owner_id, version"),
            ("api_tokens", "id, name, user_id, token_hash, read_only, created_at"),
            ("bulk_actions", "id, kind, status, priority, user_id, undone, created_at"),
        ] {
            rows += try connection.fetch(
                "SELECT '\(table) ' || quote(\(columns.replacingOccurrences(of: ", ", with: ")||' '||quote("))) FROM \(table) ORDER BY id"
            ) { try $0.string(0) }
        }
        return rows
    }

    /// A shelf file as the previous version (migrations up to 0014) left it: three users (the
    /// newest, 4, removed: an earlier 3 too), items (one edited to version 2, words to
    /// search), a view owned by a user, a token and a bulk action.
    private static func previousVersionShelf() throws -> (path: String, folder: URL, rows: [String], log: Int64) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ids-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent("old.sqlite").path
        let database = try Database(path: path, readerCount: 1)
        defer { database.close() }
        let previous = SQLiteMigrator(
            plan: MigrationPlan(migrations: migrations.filter { $0.name < "0015" }, folder: "Migrations"))
        #expect(try previous.migrate(database).last == "0014_one_change_per_update")
        return try database.write { connection in
            try connection.execute(
                """
                INSERT INTO users (id, name, email, created_at, email_key) VALUES
                    (1, 'Ann', 'ann@example.com', 10, 'ann@example.com'),
                    (2, 'Bob', 'bob@example.com', 20, 'bob@example.com'),
                    (3, 'Gone', 'gone@example.com', 30, 'gone@example.com'),
                    (5, 'Cy', 'cy@example.com', 40, 'cy@example.com'),
                    (6, 'Newest', 'newest@example.com', 50, 'newest@example.com');
                DELETE FROM users WHERE id = 3;
                INSERT INTO items (user_id, title, notes, created_at, updated_at) VALUES
                    (1, 'Read Dune', 'a classic', 1, 1), (2, 'Fix the bike', NULL, 2, 2),
                    (5, 'Water plants', 'ferns', 3, 3), (6, 'Newest item', NULL, 4, 4);
                UPDATE items SET title = 'Read Dune Messiah', version = version + 1 WHERE id = 1;
                INSERT INTO saved_views (name, name_key, query_text, sort_field, sort_direction, owner_id,
                    created_at, updated_at) VALUES ('Bob''s', 'bob''s', 'bike', 'title', 'ascending', 2, 0, 0);
                INSERT INTO api_tokens (name, user_id, token_hash, read_only, created_at) VALUES ('ci', 5, 'ab', 1, 0);
                INSERT INTO bulk_actions (kind, status, created_at) VALUES ('status', 'done', 0);
                DELETE FROM users WHERE id = 6;
                """)
            let log = try connection.fetchOne("SELECT count(*) FROM shelf_change_log") { try $0.int64(0) } ?? 0
            return (path, folder, try dump(connection), log)
        }
    }

    @Test func aShelfOfThePreviousVersionKeepsEveryRowIDAndIndexAndNeverReusesAnID() async throws {
        let (path, folder, before, log) = try Self.previousVersionShelf()
        defer { try? FileManager.default.removeItem(at: folder) }
        let sqlite = try SQLiteBackend.open(path: path)
        let store = Store(sqlite: sqlite)
        // 0015 first; later migrations (0016_item_counts, …) follow it.
        #expect(store.appliedMigrations.first == "0015_ids_never_reused")
        let (after, logAfter, sequences, missing, foreignKeys, problems) = try await sqlite.database.read {
            connection in
            (
                try Self.dump(connection),
                try connection.fetchOne("SELECT count(*) FROM shelf_change_log") { try $0.int64(0) } ?? 0,
                try connection.fetch("SELECT name || ' ' || seq FROM sqlite_sequence ORDER BY name") {
                    try $0.string(0)
                },
                try SQLiteSchemaObjects.missing(connection),
                try connection.fetch(
                    """
                    SELECT m.name || ' ' || f."table" || ' ' || f.on_delete FROM sqlite_schema m,
                        pragma_foreign_key_list(m.name) f WHERE m.type = 'table' ORDER BY m.name
                    """
                ) { try $0.string(0) },
                try connection.fetch("PRAGMA integrity_check") { try $0.string(0) }
            )
        }
        #expect(after == before, "every row, ID and version kept")
        #expect(logAfter == log, "the rebuild logged no change")
        #expect(missing.isEmpty, "\(missing)")
        #expect(problems == ["ok"])
        #expect(
            foreignKeys == [
                "api_tokens users CASCADE", "bulk_action_items bulk_actions CASCADE", "items users CASCADE",
                "saved_views users SET NULL",
            ])
        #expect(
            sequences.contains("users 6"),
            "the highest user ID ever handed out (6, removed before the migration, in the change log): \(sequences)")
        #expect(sequences.contains("saved_views 1") && sequences.contains("api_tokens 1"), "\(sequences)")

        // The full-text index kept its rows and is sound.
        #expect(try await store.items.items(matching: ItemQuery(text: "messiah")).map(\.id.rawValue) == [1])
        #expect(try await store.items.items(matching: ItemQuery(text: "ferns")).map(\.title) == ["Water plants"])
        try await sqlite.database.write {
            try $0.execute("INSERT INTO items_fts (items_fts) VALUES ('integrity-check')")
        }

        // The removed newest user's ID (6) is not handed out again, nor the view's.
        let next = try await store.users.insert(NewUser(name: "Di", email: "di@example.com"))
        #expect(next.rawValue == 7)
        try await store.views.delete(named: "Bob's")
        let view = try await store.views.save(NewSavedView(name: "Again", queryText: ""))
        #expect(view.id.rawValue == 2)

        // Foreign keys act on the new tables: a removal takes the user's items and tokens.
        #expect(try await store.users.delete(id: User.ID(5)) == 1)
        let left = try await sqlite.database.read { connection in
            (
                try connection.fetchOne("SELECT count(*) FROM api_tokens") { try $0.int64(0) },
                try connection.fetchOne("SELECT count(*) FROM items WHERE user_id = 5") { try $0.int64(0) },
                try connection.fetch("SELECT table_name || ' ' || row_count FROM shelf_changes ORDER BY 1") {
                    try $0.string(0)
                }
            )
        }
        #expect(left.0 == 0 && left.1 == 0)
        #expect(left.2 == ["items 2", "saved_views 1", "users 3"], "the counters still count every row")
        await store.close()
        #expect(try Store(path: path).appliedMigrations.isEmpty, "reopening applies nothing")
    }

    /// A migration marked to run with foreign keys off that leaves rows referring to a missing
    /// one is rolled back and named, and the connection has its foreign keys on again.
    @Test func aMigrationWithForeignKeysOffThatBreaksThemIsRolledBack() throws {
        let database = try Database.temporary()
        let tables = SchemaMigration(
            name: "0001_tables",
            sql: """
                CREATE TABLE parent (id INTEGER PRIMARY KEY);
                CREATE TABLE child (id INTEGER PRIMARY KEY, parent_id INTEGER REFERENCES parent (id) ON DELETE CASCADE);
                INSERT INTO parent VALUES (1); INSERT INTO child VALUES (1, 1);
                """)
        let breaking = SchemaMigration(
            name: "0002_breaking", sql: SQLiteMigrator.foreignKeysOffMarker + "DELETE FROM parent;")
        let plan = SQLiteMigrator(plan: MigrationPlan(migrations: [tables, breaking], folder: "Migrations"))
        let error = #expect(throws: StoreError.self) { try plan.migrate(database) }
        #expect(error?.code == .migrationFailed)
        #expect(error?.message.contains("0002_breaking") == true && error?.message.contains("1 more rows") == true)
        let (parents, children, foreignKeys) = try database.write { connection in
            (
                try connection.fetchOne("SELECT count(*) FROM parent") { try $0.int64(0) },
                try connection.fetchOne("SELECT count(*) FROM child") { try $0.int64(0) },
                try connection.fetchOne("PRAGMA foreign_keys") { try $0.int64(0) }
            )
        }
        #expect(parents == 1 && children == 1, "rolled back")
        #expect(foreignKeys == 1, "on again")
        // The same drop with foreign keys on (no mark) deletes the child by cascade: the mark is
        // what keeps a rebuild from emptying the tables that refer to it.
        let rebuild = SchemaMigration(
            name: "0002_rebuild",
            sql: SQLiteMigrator.foreignKeysOffMarker
                + """
                CREATE TABLE parent_new (id INTEGER PRIMARY KEY AUTOINCREMENT);
                INSERT INTO parent_new SELECT id FROM parent;
                DROP TABLE parent;
                ALTER TABLE parent_new RENAME TO parent;
                """)
        _ = try SQLiteMigrator(plan: MigrationPlan(migrations: [tables, rebuild], folder: "Migrations")).migrate(
            database)
        #expect(try database.read { try $0.fetchOne("SELECT count(*) FROM child") { try $0.int64(0) } } == 1)
    }

    /// A restore over a store keeps the IDs that store handed out after the backup was made
    /// from being handed out again.
    @Test func aRestoreKeepsTheIDSequencesAhead() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ids-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("shelf.sqlite").path
        let backup = folder.appendingPathComponent("backup.sqlite").path
        let store = try Store(path: path)
        let ann = try await store.users.insert(NewUser(name: "Ann", email: "ann@example.com"))
        try await store.items.insert(NewItem(userID: ann, title: "Kept"))
        try await store.backup(to: backup)
        let later = try await store.users.insert(NewUser(name: "Later", email: "later@example.com"))
        let laterItem = try await store.items.insert(NewItem(userID: later, title: "Later"))
        let view = try await store.views.save(NewSavedView(name: "Later", queryText: ""))
        await store.close()
        _ = try Store.restore(backup: backup, toFile: path)
        let restored = try Store(path: path)
        #expect(try await restored.users.user(id: later) == nil)
        let next = try await restored.users.insert(NewUser(name: "Next", email: "next@example.com"))
        #expect(next.rawValue > later.rawValue, "user \(next.rawValue) took \(later.rawValue), made after the backup")
        #expect(try await restored.items.insert(NewItem(userID: ann, title: "Next")).rawValue > laterItem.rawValue)
        #expect(try await restored.views.save(NewSavedView(name: "Next", queryText: "")).id.rawValue > view.id.rawValue)
        await restored.close()
    }
}
