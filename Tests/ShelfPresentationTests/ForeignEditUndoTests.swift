import Foundation
import ShelfPresentation
import ShelfReactive
import ShelfSQLiteBackend
import ShelfStore
import ShelfTestSupport
import Testing

#if PostgreSQL
    import ShelfPostgres
    import ShelfPostgresTesting
#endif

/// Undo and redo against edits made by another program: the `sqlite3` shell on a SQLite file,
/// `psql` on a PostgreSQL database. Such a program does not know about `version`; the schema
/// moves it for every change to a row (Migrations/0006, postgres/0004), so undo refuses as it
/// does between two browsers instead of writing its old fields over the other program's edit.
@MainActor
@Suite("Undo after another program's edit")
struct ForeignEditUndoTests {
    /// A store on one backend, with the command line of the other program that edits it.
    enum Backend: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case sqlite
        case postgres

        var testDescription: String { rawValue }

        static var available: [Backend] {
            #if PostgreSQL
                let server = ProcessInfo.processInfo.environment["SHELF_TEST_POSTGRES"] ?? ""
                return server.isEmpty ? [.sqlite] : [.sqlite, .postgres]
            #else
                return [.sqlite]
            #endif
        }

        /// Runs `body` with a fresh store holding two users and three items, and a function
        /// that runs SQL in the other program (its exit status is checked).
        @MainActor func withStore(
            _ body: (Store, _ foreign: @escaping @Sendable (String) throws -> Void) async throws -> Void
        ) async throws {
            switch self {
            case .sqlite:
                let folder = try TemporaryFolder()
                defer { folder.remove() }
                let path = folder.path("shelf.sqlite")
                let store = try Store(path: path)
                try await Self.fill(store)
                try await body(store) { sql in
                    let status = try ChildProcess.sqlite3(path, sql)
                    guard status == 0 else { throw ShellError(message: "sqlite3 exited with \(status): \(sql)") }
                }
                await store.close()
            case .postgres:
                #if PostgreSQL
                    let server = try #require(ProcessInfo.processInfo.environment["SHELF_TEST_POSTGRES"])
                    try await PostgresScratch.withDatabase(serverURL: server) { url in
                        let store = try await Store.open(postgres: url)
                        try await Self.fill(store)
                        do {
                            try await body(store) { sql in
                                let status = try ChildProcess(
                                    "/usr/bin/psql", ["-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", url, "-c", sql],
                                    environment: ["PATH": "/usr/bin:/bin"]
                                ).wait()
                                guard status == 0 else {
                                    throw ShellError(message: "psql exited with \(status): \(sql)")
                                }
                            }
                        } catch {
                            await store.close()
                            throw error
                        }
                        await store.close()
                    }
                #else
                    return  // not in `available` without the PostgreSQL trait
                #endif
            }
        }

        /// SQL that writes item `id` again as a new row with `title`, keeping every other column
        /// (its version too), as such programs do: `INSERT OR REPLACE` in the sqlite3 shell,
        /// DELETE then INSERT in one psql transaction. No UPDATE, so no version trigger runs.
        func reinsert(_ id: Item.ID, title: String) -> String {
            let columns = "id, user_id, notes, status, priority, created_at, updated_at, version"
            let from = "SELECT id, user_id, '\(title)', notes, status, priority, created_at, updated_at, version"
            switch self {
            case .sqlite:
                return "INSERT OR REPLACE INTO items (id, user_id, title, notes, status, priority, created_at, "
                    + "updated_at, version) \(from) FROM items WHERE id = \(id.rawValue)"
            case .postgres:
                return "CREATE TEMP TABLE old AS SELECT \(columns) FROM items WHERE id = \(id.rawValue); "
                    + "DELETE FROM items WHERE id = \(id.rawValue); "
                    + "INSERT INTO items (id, user_id, title, notes, status, priority, created_at, updated_at, version) "
                    + "\(from) FROM old"
            }
        }

        private static func fill(_ store: Store) async throws {
            let ann = try await store.users.insert(NewUser(name: "Ann", email: "ann@example.com"))
            for n in 1...3 {
                try await store.items.insert(NewItem(userID: ann, title: "Item \(n)", notes: "notes \(n)", priority: 1))
            }
        }
    }

    private func all(_ store: Store) async throws -> [Item] {
        try await store.items.items(matching: ItemQuery(sortField: .created, sortDirection: .ascending))
    }

    @Test(arguments: Backend.available)
    func anUndoIsRefusedAfterAnotherProgramEditedTheItem(_ backend: Backend) async throws {
        try await backend.withStore { store, foreign in
            let item = try #require(try await all(store).first)
            let actions = ItemActions(store: store)
            await actions.setPriority(2, selected: item.id)
            #expect(actions.message.value == "set priority 2 on 1 item")
            try foreign("UPDATE items SET title = 'Their title', notes = 'their notes' WHERE id = \(item.id.rawValue)")
            let history = actions.history

            await actions.undo()
            #expect(actions.message.value == "item \(item.id.rawValue) was changed elsewhere since; nothing undone")
            #expect(actions.history == history, "the history stays as it was")
            let now = try #require(try await store.items.item(id: item.id))
            #expect(now.title == "Their title" && now.notes == "their notes" && now.priority == 2)
            #expect(now.version == item.version + 2, "shelf's write and the other program's each moved the version")
        }
    }

    @Test(arguments: Backend.available)
    func aRedoneDeleteIsRefusedAfterAnotherProgramEditedTheRestoredItem(_ backend: Backend) async throws {
        try await backend.withStore { store, foreign in
            let item = try #require(try await all(store).last)
            let actions = ItemActions(store: store)
            await actions.delete(ids: [item.id])
            await actions.undo()
            #expect(actions.message.value == "undid: delete 1 item")
            try foreign("UPDATE items SET notes = 'their notes' WHERE id = \(item.id.rawValue)")

            await actions.redo()
            #expect(actions.message.value == "item \(item.id.rawValue) was changed elsewhere since; nothing redone")
            #expect(try await store.items.item(id: item.id)?.notes == "their notes", "the item and their edit stay")
        }
    }

    /// Hostile tester: a re-insert keeps the old version, so a check of the version alone let
    /// undo and redo write over it.
    @Test(arguments: Backend.available)
    func anUndoAndARedoAreRefusedAfterAnotherProgramReinsertedTheItemWithItsVersion(_ backend: Backend) async throws {
        try await backend.withStore { store, foreign in
            let items = try await all(store)
            let actions = ItemActions(store: store)
            await actions.setPriority(2, selected: items[0].id)
            let written = try #require(try await store.items.item(id: items[0].id))
            try foreign(backend.reinsert(items[0].id, title: "Their title"))
            let now = try #require(try await store.items.item(id: items[0].id))
            #expect(now.version == written.version && now.title == "Their title", "the version did not move")

            await actions.undo()
            #expect(actions.message.value == "item \(items[0].id.rawValue) was changed elsewhere since; nothing undone")
            #expect(try await store.items.item(id: items[0].id) == now, "their row stays as they wrote it")

            // A redone delete: the restored row re-inserted by the other program.
            await actions.delete(ids: [items[1].id])
            await actions.undo()
            #expect(actions.message.value == "undid: delete 1 item")
            try foreign(backend.reinsert(items[1].id, title: "Kept"))
            await actions.redo()
            #expect(actions.message.value == "item \(items[1].id.rawValue) was changed elsewhere since; nothing redone")
            #expect(try await store.items.item(id: items[1].id)?.title == "Kept")
        }
    }

    @Test(arguments: Backend.available)
    func shelfsOwnWritesMoveTheVersionOneStepAndUndoStillWorks(_ backend: Backend) async throws {
        try await backend.withStore { store, foreign in
            let items = try await all(store)
            let actions = ItemActions(store: store)
            for item in items { actions.toggleMark(id: item.id) }
            await actions.toggleDone(selected: nil)
            #expect(try await all(store).map(\.version) == items.map { $0.version + 1 })
            await actions.undo()
            #expect(actions.message.value == "undid: mark 3 items done")
            #expect(try await all(store).map(\.version) == items.map { $0.version + 2 })
            // Setting the version back by hand does not make an old version current again.
            try foreign("UPDATE items SET version = 1, priority = 3 WHERE id = \(items[0].id.rawValue)")
            #expect(try await store.items.item(id: items[0].id)?.version == items[0].version + 3)
            await actions.redo()
            #expect(actions.message.value == "item \(items[0].id.rawValue) was changed elsewhere since; nothing redone")
        }
    }

    @Test(arguments: Backend.available)
    func aSavedViewEditedByAnotherProgramIsNotOverwritten(_ backend: Backend) async throws {
        try await backend.withStore { store, foreign in
            let view = try await store.views.save(NewSavedView(name: "Urgent", queryText: "prio:3"))
            try foreign("UPDATE saved_views SET query_text = 'prio:2' WHERE id = \(view.id.rawValue)")
            await #expect {
                _ = try await store.views.save(
                    NewSavedView(name: "Urgent", queryText: "prio:1"), replacingVersion: view.version)
            } throws: { error in
                (error as? StoreError)?.code == .conflict
            }
        }
    }
}
