import Foundation
import ShelfSQLite
import Testing

@testable import ShelfSQLiteBackend
@testable import ShelfStore

@Suite("Statement journals")
struct StatementJournalTests {
    /// The temporary files of SQLite (`etilqs_…`, removed from their folder as soon as
    /// created) this process has open, by descriptor.
    static func openTemporaryFiles() -> Set<String> {
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return Set(
            descriptors.compactMap { descriptor in
                guard
                    let target = try? FileManager.default.destinationOfSymbolicLink(
                        atPath: "/proc/self/fd/\(descriptor)"),
                    target.contains("etilqs_")
                else { return nil }
                return "\(descriptor) \(target)"
            })
    }

    /// An item insert inside a write transaction keeps a statement journal (it fires
    /// triggers): about 100 KB of changed pages, which SQLite's default of 64 KiB in memory
    /// wrote to a new temporary file on every one-row write. It stays in memory now; the
    /// file, if any, stays open until the commit, so it is looked for before that.
    @Test func aOneRowWriteKeepsItsStatementJournalInMemory() async throws {
        let sqlite = try SQLiteBackend.temporary()
        let store = Store(sqlite: sqlite)
        let ann = try await store.users.insert(NewUser(name: "Ann", email: "ann@example.com"))
        _ = try await store.items.insert(NewItem(userID: ann, title: "first", notes: "some notes"))
        let opened = try await sqlite.database.write { connection in
            let before = Self.openTemporaryFiles()
            try connection.run(
                """
                INSERT INTO items (user_id, title, notes, status, priority, created_at, updated_at, version)
                VALUES (?, ?, ?, ?, ?, ?, ?, 1)
                """,
                ann, "second item", "more notes", Item.Status.open, 2, Date(), Date())
            #expect(connection.changes == 1)
            return Self.openTemporaryFiles().subtracting(before)
        }
        #expect(opened.isEmpty, "the insert's statement journal went to a temporary file: \(opened)")
        #expect(try await store.items.count(matching: ItemQuery()) == 2)
    }
}
