import Foundation
import ShelfSQLite
import Testing

@testable import ShelfSQLiteBackend
@testable import ShelfStore

@Suite("SQLiteItemRepository")
struct ItemRepositoryTests {
    @Test func insertsAndFetchesWithVersionOne() async throws {
        let fixture = try await Fixture()
        let id = try await fixture.store.items.insert(
            NewItem(userID: fixture.ann, title: "Read Dune", notes: "the long one", status: .open, priority: 2))
        let item = try #require(try await fixture.store.items.item(id: id))
        #expect(item.title == "Read Dune")
        #expect(item.notes == "the long one")
        #expect(item.priority == 2)
        #expect(item.status == .open)
        #expect(item.version == 1)
        #expect(item.createdAt == item.updatedAt)
        #expect(abs(item.createdAt.timeIntervalSinceNow) < 60)
    }

    @Test(arguments: [
        NewItem(userID: User.ID(1), title: ""), NewItem(userID: User.ID(1), title: " \t "),
        NewItem(userID: User.ID(1), title: "x", priority: 4), NewItem(userID: User.ID(1), title: "x", priority: -1),
    ])
    func rejectsInvalidItems(item: NewItem) async throws {
        let fixture = try await Fixture()
        let error = await #expect(throws: StoreError.self) { try await fixture.store.items.insert(item) }
        #expect(error?.code == .invalidValue)
        #expect(error?.message.contains("item") == true)
        #expect(try await fixture.itemCount() == 0)
    }

    @Test func rejectsAnUnknownOwner() async throws {
        let fixture = try await Fixture()
        let error = await #expect(throws: StoreError.self) {
            try await fixture.store.items.insert(NewItem(userID: User.ID(404), title: "orphan"))
        }
        #expect(error?.code == .unknownUser)
    }

    @Test func batchInsertFailureStoresNothingAndNamesThePosition() async throws {
        let fixture = try await Fixture()
        var batch = (1...100).map { NewItem(userID: fixture.ann, title: "item \($0)") }
        batch[41].title = ""
        let error = await #expect(throws: StoreError.self) { try await fixture.store.items.insert(contentsOf: batch) }
        #expect(error?.message.hasPrefix("item 42 of 100: ") == true)
        #expect(try await fixture.itemCount() == 0)
    }

    @Test func staleVersionConflictsAndWritesNothing() async throws {
        let fixture = try await Fixture()
        let items = fixture.store.items
        let id = try await items.insert(NewItem(userID: fixture.ann, title: "original"))
        let read = try #require(try await items.item(id: id))

        var mine = read
        mine.title = "mine"
        let saved = try await items.update(mine)
        #expect(saved.version == 2)
        #expect(saved.title == "mine")
        #expect(saved.updatedAt >= read.updatedAt)

        var theirs = read  // still at version 1
        theirs.title = "theirs"
        theirs.priority = 3
        let error = await #expect(throws: StoreError.self) { try await items.update(theirs) }
        #expect(error?.code == .conflict)
        #expect(error?.message.contains("version 1") == true)
        #expect(try await items.item(id: id) == saved)
    }

    @Test func updateAndDeleteOfAMissingItemAreNotFound() async throws {
        let fixture = try await Fixture()
        let items = fixture.store.items
        let id = try await items.insert(NewItem(userID: fixture.ann, title: "gone soon"))
        let item = try #require(try await items.item(id: id))
        try await items.delete(id: id)
        #expect(try await items.item(id: id) == nil)
        let update = await #expect(throws: StoreError.self) { try await items.update(item) }
        #expect(update?.code == .notFound)
        let delete = await #expect(throws: StoreError.self) { try await items.delete(id: id) }
        #expect(delete?.code == .notFound)
    }

    @Test func invalidUpdateKeepsTheStoredItem() async throws {
        let fixture = try await Fixture()
        let items = fixture.store.items
        let id = try await items.insert(NewItem(userID: fixture.ann, title: "keep me"))
        var item = try #require(try await items.item(id: id))
        item.title = ""
        let error = await #expect(throws: StoreError.self) { try await items.update(item) }
        #expect(error?.code == .invalidValue)
        #expect(try await items.item(id: id)?.title == "keep me")
    }

    @Test func deleteItemsCountsOnlyExisting() async throws {
        let fixture = try await Fixture()
        let ids = try await fixture.store.items.insert(
            contentsOf: (1...5).map { NewItem(userID: fixture.ann, title: "n\($0)") })
        #expect(try await fixture.store.items.deleteItems(ids: [ids[0], ids[2], Item.ID(9999)]) == 2)
        #expect(try await fixture.itemCount() == 3)
    }

    @Test func filtersByOwnerStatusAndText() async throws {
        let fixture = try await Fixture()
        let bob = try await fixture.store.users.insert(NewUser(name: "Bob", email: "bob@example.com"))
        _ = try await fixture.store.items.insert(contentsOf: [
            NewItem(userID: fixture.ann, title: "Moth trap", status: .open),
            NewItem(userID: fixture.ann, title: "Butterfly net", notes: "for the moths", status: .done),
            NewItem(userID: bob, title: "Mothball", status: .open),
            NewItem(userID: bob, title: "Lamp", status: .done),
        ])
        let items = fixture.store.items
        #expect(try await items.count(matching: ItemQuery(owner: fixture.ann)) == 2)
        #expect(try await items.count(matching: ItemQuery(status: .done)) == 2)
        #expect(try await items.count(matching: ItemQuery(text: "mot")) == 3)
        #expect(try await items.count(matching: ItemQuery(owner: bob, status: .open, text: "mot")) == 1)
        let titles = try await items.items(
            matching: ItemQuery(text: "MOTH", sortField: .title, sortDirection: .ascending))
        #expect(titles.map(\.title) == ["Butterfly net", "Moth trap", "Mothball"])
    }
}

@Suite("Item counts")
struct ItemCountTests {
    @Test func theKeptCountMatchesTheTableThroughEveryKindOfChange() async throws {
        let fixture = try await Fixture()
        let store = fixture.store
        let bob = try await store.users.insert(NewUser(name: "Bob", email: "bob@example.com"))
        let ids = try await store.items.insert(
            contentsOf: (0..<30).map { NewItem(userID: $0 % 2 == 0 ? fixture.ann : bob, title: "n\($0)") })
        try await store.items.delete(id: ids[0])
        _ = try await store.items.deleteItems(ids: Array(ids[1...3]))
        try await store.users.delete(id: bob)  // cascades to Bob's items
        let scanned = try await fixture.sqlite.database.read {
            try $0.fetchOne("SELECT count(*) FROM items") { try $0.get(0, as: Int.self) }
        }
        #expect(try await store.items.count(matching: ItemQuery()) == scanned)
        #expect(scanned == 13, "15 of Ann's, less the 2 deleted")
    }
}

@Suite("Page limits")
struct PageLimitTests {
    @Test func aNegativeLimitIsRefusedNotReadAsUnlimited() async throws {
        let fixture = try await Fixture()
        try await fixture.store.items.insert(contentsOf: (1...3).map { NewItem(userID: fixture.ann, title: "n\($0)") })
        let error = await #expect(throws: StoreError.self) {
            try await fixture.store.items.items(matching: ItemQuery(), after: nil, limit: -1)
        }
        #expect(error?.code == .invalidValue)
        await #expect(throws: StoreError.self) { try await fixture.store.liveItems(matching: ItemQuery(), limit: -5) }
        #expect(try await fixture.store.items.items(matching: ItemQuery(), limit: 0).isEmpty)
    }
}

@Suite("Rows written outside shelf")
struct ForeignRowTests {
    @Test func anUnknownStatusFailsWithAFixNotACrash() async throws {
        let fixture = try await Fixture()
        let id = try await fixture.store.items.insert(NewItem(userID: fixture.ann, title: "x"))
        try fixture.sqlite.database.withWriter { connection in
            try connection.execute("PRAGMA ignore_check_constraints = ON")
            try connection.run("UPDATE items SET status = 'later' WHERE id = ?", id)
            try connection.execute("PRAGMA ignore_check_constraints = OFF")
        }
        let error = await #expect(throws: StoreError.self) { try await fixture.store.items.item(id: id) }
        #expect(error?.code == .corrupt)
        #expect(error?.message.contains("'later'") == true)
        #expect(error?.message.contains("'open' or 'done'") == true)
    }
}
