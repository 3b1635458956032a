import Foundation
import ShelfSQLiteBackend
import ShelfStore
import ShelfTestSupport
import Testing

/// The NUL character is refused by the SQLite database itself (migration 0009), as PostgreSQL
/// refuses it, so another program cannot store text that an export writes raw and no import
/// reads back; a row stored with one before can still change in its other columns.
@Suite("NUL refused by the database (SQLite)")
struct NULTriggerTests {
    @Test func theShellCannotStoreANULAndOldRowsStayWritable() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("shelf.sqlite")
        let store = try Store(path: path)
        let ann = try await store.users.insert(NewUser(name: "Ann", email: "ann@x.com"))
        let item = try await store.items.insert(NewItem(userID: ann, title: "Plain"))
        await store.close()
        let nul = "cast(x'610062' as text)"
        for statement in [
            "INSERT INTO items (user_id, title, notes, created_at, updated_at) VALUES (\(ann.rawValue), 'T', \(nul), 0, 0)",
            "UPDATE items SET notes = \(nul) WHERE id = \(item.rawValue)",
            "UPDATE items SET title = \(nul) WHERE id = \(item.rawValue)",
            "INSERT INTO users (name, email, created_at) VALUES (\(nul), 'b@x.com', 0)",
            "UPDATE users SET name = \(nul) WHERE id = \(ann.rawValue)",
            "INSERT INTO saved_views (name, name_key, query_text, sort_field, sort_direction, created_at, updated_at) "
                + "VALUES ('v', 'v', \(nul), 'created', 'descending', 0, 0)",
        ] {
            #expect(try await ChildProcess.sqlite3(path, statement) != 0, "refused: \(statement)")
        }
        // A row that already holds a NUL (stored before the rule: here with the trigger
        // dropped and made again) still takes changes to its other columns.
        let trigger = "items_refuse_nul_before_update"
        let saved = folder.path("trigger.sql")
        #expect(
            try ChildProcess(
                "/usr/bin/sqlite3", [path, "SELECT sql || ';' FROM sqlite_master WHERE name = '\(trigger)'"],
                environment: ["PATH": "/usr/bin:/bin"], output: .file(saved)
            ).wait() == 0)
        let sql = try String(contentsOfFile: saved, encoding: .utf8)
        #expect(sql.contains("CREATE TRIGGER \(trigger)"))
        #expect(
            try await ChildProcess.sqlite3(
                path, "DROP TRIGGER \(trigger); UPDATE items SET notes = \(nul) WHERE id = \(item.rawValue); \(sql)")
                == 0)
        #expect(try await ChildProcess.sqlite3(path, "UPDATE items SET priority = 2 WHERE id = \(item.rawValue)") == 0)
        #expect(
            try await ChildProcess.sqlite3(path, "UPDATE items SET title = 'Renamed' WHERE id = \(item.rawValue)") == 0)
        #expect(
            try await ChildProcess.sqlite3(path, "UPDATE items SET notes = 'clean' WHERE id = \(item.rawValue)") == 0)
        let reopened = try Store(path: path)
        let stored = try #require(try await reopened.items.item(id: item))
        #expect(stored.priority == 2 && stored.title == "Renamed" && stored.notes == "clean")
        await reopened.close()
    }
}
