import Foundation
import ShelfSQLite
import Testing

@testable import ShelfSQLiteBackend
@testable import ShelfStore

/// A title stored past the limit by another program (the sqlite3 shell) does not block bulk
/// changes of the item's other fields, nor undoing its deletion; a new title past the limit
/// is still refused.
@Suite("Titles stored past the limit by others")
struct LongTitleBulkTests {
    @Test func bulkChangesAndRestoreKeepATitleTheyDidNotWrite() async throws {
        let fixture = try await Fixture()
        let items = fixture.store.items
        let id = try await items.insert(NewItem(userID: fixture.ann, title: "short"))
        let long = String(repeating: "x", count: TextLimits.title + 100)
        try await fixture.sqlite.database.write { try $0.run("UPDATE items SET title = ? WHERE id = ?", long, id) }
        var item = try #require(try await items.item(id: id))
        #expect(item.title == long)

        item.status = .done
        let saved = try await items.update(contentsOf: [item])
        #expect(saved.first?.status == .done && saved.first?.title == long)

        var retitled = try #require(saved.first)
        retitled.title = String(repeating: "y", count: TextLimits.title + 1)
        await #expect(throws: StoreError.self) { try await items.update(contentsOf: [retitled]) }
        #expect(try await items.item(id: id)?.title == long, "nothing written")

        let before = try #require(try await items.item(id: id))
        try await items.delete(id: id)
        try await items.restore([before])
        #expect(try await items.item(id: id) == before)
    }
}
