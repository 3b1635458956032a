import Foundation
import ShelfReactive
import ShelfSQLite
import ShelfTestSupport
import Testing

@testable import ShelfSQLiteBackend
@testable import ShelfStore

/// The change log of Migrations/0011 (written by the database itself, whoever writes), and
/// what live windows make of it: shared entries, positions, re-reads only when needed.
@Suite("Change log")
struct ChangeLogTests {
    struct Entry: Equatable {
        var table: String
        var row: Int64
        var operation: String
        var oldTitle: String? = nil
        var newTitle: String? = nil
        var newPriority: Int64? = nil
    }

    static func log(_ sqlite: SQLiteBackend, after sequence: Int64 = 0) async throws -> [Entry] {
        try await sqlite.database.read { connection in
            try connection.fetch(
                "SELECT table_name, row_id, operation, old_title, new_title, new_priority FROM shelf_change_log "
                    + "WHERE seq > ? ORDER BY seq", sequence
            ) { row in
                Entry(
                    table: try row.string(0), row: try row.int64(1), operation: try row.string(2),
                    oldTitle: row.optionalString(3), newTitle: row.optionalString(4),
                    newPriority: try row.get(5, as: Int64?.self))
            }
        }
    }

    static func lastSequence(_ sqlite: SQLiteBackend) async throws -> Int64 {
        try await sqlite.database.read { try SQLiteChangeLog.lastSequence($0) }
    }

    /// INSERT OR REPLACE deletes the row it overwrites without a DELETE trigger: the count went
    /// up by one (issue 21's leftover, seen in the browser after an external REPLACE), the
    /// deleted row was never logged, and its words stayed in the full-text index.
    @Test func anExternalReplaceKeepsTheCountTheLogAndTheSearchExact() async throws {
        let fixture = try await Fixture()
        let store = fixture.store
        let first = try await store.items.insert(NewItem(userID: fixture.ann, title: "walrus"))
        _ = try await store.items.insert(NewItem(userID: fixture.ann, title: "second"))
        let live = try await store.liveItems(matching: ItemQuery(), limit: 10)
        let before = try await Self.lastSequence(fixture.sqlite)
        let shell = try SQLiteShell(path: try #require(store.path))
        try await shell.run(
            "INSERT OR REPLACE INTO items (id, user_id, title, created_at, updated_at) "
                + "VALUES (\(first.rawValue), \(fixture.ann.rawValue), 'pelican', 1, 1);")
        shell.finish()
        #expect(try await store.items.count(matching: ItemQuery()) == 2)
        #expect(try await store.items.count(matching: ItemQuery(text: "walrus")) == 0, "the old words left")
        #expect(try await store.items.count(matching: ItemQuery(text: "pelican")) == 1)
        #expect(
            try await Self.log(fixture.sqlite, after: before) == [
                Entry(table: "items", row: first.rawValue, operation: "delete", oldTitle: "walrus"),
                Entry(table: "items", row: first.rawValue, operation: "insert", newTitle: "pelican", newPriority: 0),
            ])
        #expect(await eventually { live.value.success?.totalCount == 2 })
        #expect(live.value.success?.items.map(\.title).sorted() == ["pelican", "second"])
    }

    /// A user REPLACE'd over another by email: the count stays exact and the delete is logged.
    @Test func aUserReplacedByEmailIsLoggedAsDeleted() async throws {
        let fixture = try await Fixture()
        let shell = try SQLiteShell(path: try #require(fixture.store.path))
        let before = try await Self.lastSequence(fixture.sqlite)
        try await shell.run(
            "INSERT OR REPLACE INTO users (id, name, email, created_at) VALUES (77, 'Ann again', 'ANN@example.com', 1);"
        )
        shell.finish()
        #expect(try await fixture.store.users.users().map(\.name) == ["Ann again"])
        let counted = try await fixture.sqlite.database.read { connection in
            try connection.fetchOne("SELECT row_count FROM shelf_changes WHERE table_name = 'users'") {
                try $0.int64(0)
            }
        }
        #expect(counted == 1)
        #expect(
            try await Self.log(fixture.sqlite, after: before).map { "\($0.operation) \($0.row)" } == [
                "delete \(fixture.ann.rawValue)", "insert 77",
            ])
    }

    /// The same change made by shelf and by the sqlite3 shell is logged the same way.
    @Test func theShellsWritesAreLoggedAsShelfs() async throws {
        let fixture = try await Fixture()
        let store = fixture.store
        let id = try await store.items.insert(NewItem(userID: fixture.ann, title: "by shelf"))
        var item = try #require(try await store.items.item(id: id))
        let start = try await Self.lastSequence(fixture.sqlite)
        item.priority = 3
        _ = try await store.items.update(item)
        try await store.items.delete(id: id)
        let byShelf = try await Self.log(fixture.sqlite, after: start)

        let shell = try SQLiteShell(path: try #require(store.path))
        let middle = try await Self.lastSequence(fixture.sqlite)
        try await shell.run(
            "INSERT INTO items (id, user_id, title, created_at, updated_at) "
                + "VALUES (\(id.rawValue), \(fixture.ann.rawValue), 'by shelf', 1, 1);")
        let shellStart = try await Self.lastSequence(fixture.sqlite)
        try await shell.run(
            "UPDATE items SET priority = 3 WHERE id = \(id.rawValue); DELETE FROM items WHERE id = \(id.rawValue);")
        shell.finish()
        #expect(shellStart == middle + 1)
        let byShell = try await Self.log(fixture.sqlite, after: shellStart)
        // The shell's update is logged twice: its own, and the version trigger's (0006).
        #expect(byShell.filter { $0.operation != "update" } == byShelf.filter { $0.operation != "update" })
        #expect(byShell.first { $0.operation == "update" } == byShelf.first { $0.operation == "update" })
    }

    /// The log stays bounded; a window behind its pruning reads in full once, and is exact.
    @Test func theLogIsPrunedAndAWindowBehindItReadsInFull() async throws {
        let fixture = try await Fixture()
        let live = try await fixture.store.liveItems(matching: ItemQuery(status: .open), limit: 5)
        let windows = fixture.sqlite.liveWindows
        let full = windows.fullPasses.value
        let ann = fixture.ann.rawValue
        try await fixture.sqlite.database.write { connection in
            try connection.execute(
                "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 25000) "
                    + "INSERT INTO items (user_id, title, created_at, updated_at) SELECT \(ann), 'bulk ' || i, i, i FROM n"
            )
        }
        let kept = try await fixture.sqlite.database.read { connection in
            try connection.fetchOne("SELECT count(*), min(seq), max(seq) FROM shelf_change_log") {
                (try $0.int64(0), try $0.int64(1), try $0.int64(2))
            }
        }
        let (count, lowest, highest) = try #require(kept)
        #expect(count <= 11_000)
        #expect(highest - lowest + 1 == count, "what is kept has no gap")
        #expect(await eventually { live.value.success?.totalCount == 25_000 })
        #expect(live.value.success?.items.first?.title == "bulk 25000")
        #expect(windows.fullPasses.value == full + 1)
    }

    /// Equal keys share one entry and one read; positions grow with publications only.
    @Test func identicalWindowsShareOneReadAndCarryTheirPosition() async throws {
        let fixture = try await Fixture()
        let store = fixture.store
        let windows = fixture.sqlite.liveWindows
        let query = ItemQuery(status: .open)
        let first = try await store.liveItemSnapshots(matching: query, limit: 5)
        let reads = windows.runs.value
        let others = try await (0..<100).asyncMap { _ in try await store.liveItems(matching: query, limit: 5) }
        #expect(windows.runs.value == reads, "a hundred more of the same key read nothing")
        #expect(windows.registry.count == 1)
        let start = try #require(first.value.success?.position)

        let id = try await store.items.insert(NewItem(userID: fixture.ann, title: "open one"))
        await windows.settle()
        let afterInsert = try #require(first.value.success)
        #expect(afterInsert.value.items.map(\.id) == [id])
        #expect(try #require(afterInsert.position) > start)
        #expect(afterInsert.position?.sequence == (try await Self.lastSequence(fixture.sqlite)))
        #expect(others.allSatisfy { $0.value.success == afterInsert.value })

        // A change the window cannot show: not published, the position stays where the
        // window last changed, so a client resuming from a later position has it already.
        _ = try await store.items.insert(NewItem(userID: fixture.ann, title: "done one", status: .done))
        await windows.settle()
        #expect(first.value.success?.position == afterInsert.position)
        #expect(try await Self.lastSequence(fixture.sqlite) > afterInsert.position!.sequence)
        #expect(windows.runs.value == reads, "both commits were judged from the log")
        #expect(LivePosition(afterInsert.position!.description) == afterInsert.position)
    }
}

extension Sequence {
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var result: [T] = []
        for element in self { result.append(try await transform(element)) }
        return result
    }
}
