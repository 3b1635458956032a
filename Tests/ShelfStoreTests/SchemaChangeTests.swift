import Foundation
import ShelfSQLiteBackend
import ShelfStore
import ShelfTestSupport
import Testing

/// Another connection changes the schema (an index made again, as a bulk change or import does,
/// or another program's): the store's next write transaction reads the schema again before its
/// first statement. SQLite 3.40 failed to prepare a DELETE on a table with foreign keys on a
/// connection whose schema was stale ("database schema has changed: no such table: users";
/// hostile tester: `shelf users remove` during a bulk owner change).
@Suite struct SchemaChangeTests {
    @Test func aDeleteThatWaitedForAnotherConnectionsSchemaChangeSucceeds() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("shelf.sqlite")
        let store = try Store(path: path)
        let ann = try await store.users.insert(NewUser(name: "Ann", email: "ann@example.com"))
        let bob = try await store.users.insert(NewUser(name: "Bob", email: "bob@example.com"))
        _ = try await store.items.insert(NewItem(userID: ann, title: "kept"))
        _ = try await store.items.insert(NewItem(userID: bob, title: "goes with Bob"))
        await store.close()
        // A process that opens the store and deletes at once, as `shelf users remove` does.
        let fresh = try Store(path: path)
        let shell = try SQLiteShell(path: path)
        defer { shell.finish() }
        try await shell.run("BEGIN IMMEDIATE; CREATE INDEX other_program ON items (title, notes);")
        let removal = Task { try await fresh.users.delete(id: bob) }
        // The delete waits for the shell's lock (its busy timeout is 60 s); had it not begun
        // waiting yet, it would still meet the changed schema, from a connection that read the
        // old one.
        try await Task.sleep(for: .milliseconds(500))
        try await shell.run("COMMIT;")
        _ = try await removal.value
        #expect(try await fresh.users.user(id: bob) == nil)
        #expect(try await fresh.items.items(matching: ItemQuery()).map(\.title) == ["kept"])
        await fresh.close()
    }
}
