import Foundation
import ShelfReactive
import ShelfStore
import Testing

/// `update(contentsOf:)` and `restore(_:)`, on every backend: all or nothing, the failing
/// item named, restored items exactly as they were, restored IDs never handed out again, and
/// each call one change for live queries.
@Suite("Conformance: bulk updates and restore")
struct BulkConformanceTests {
    /// Ann and three items ("One" with notes, "Two", "Three").
    private func fill(_ store: Store) async throws -> (User.ID, [Item]) {
        let ann = try await store.users.insert(NewUser(name: "Ann", email: "ann@example.com"))
        let ids = try await store.items.insert(contentsOf: [
            NewItem(userID: ann, title: "One", notes: "first notes", priority: 1),
            NewItem(userID: ann, title: "Two"),
            NewItem(userID: ann, title: "Three", status: .done, priority: 3),
        ])
        var items: [Item] = []
        for id in ids { items.append(try #require(try await store.items.item(id: id))) }
        return (ann, items)
    }

    @Test(arguments: Backend.available)
    func updateContentsOfSavesEveryItemInOrder(_ backend: Backend) async throws {
        try await backend.withStore { (store: Store) async throws in
            let (_, items) = try await fill(store)
            let bob = try await store.users.insert(NewUser(name: "Bob", email: "bob@example.com"))
            let changed = items.reversed().map { item in
                var item = item
                item.status = .done
                item.userID = bob
                item.notes = item.notes.map { $0 + "!" }
                return item
            }
            let saved = try await store.items.update(contentsOf: changed)
            #expect(saved.map(\.id) == changed.map(\.id), "in the order given")
            #expect(saved.allSatisfy { $0.version == 2 && $0.status == .done && $0.userID == bob })
            #expect(saved.last?.notes == "first notes!")
            for item in saved { #expect(try await store.items.item(id: item.id) == item) }
            #expect(try await store.items.update(contentsOf: []).isEmpty)
        }
    }

    @Test(arguments: Backend.available)
    func oneStaleItemWritesNothingAndIsNamed(_ backend: Backend) async throws {
        try await backend.withStore { (store: Store) async throws in
            let (_, items) = try await fill(store)
            // Someone else saves "Two" first.
            var theirs = items[1]
            theirs.title = "Two, theirs"
            _ = try await store.items.update(theirs)
            let mine = items.map { item in
                var item = item
                item.priority = 0
                item.title = item.title + " (mine)"
                return item
            }
            let conflict = await #expect(throws: StoreError.self) { try await store.items.update(contentsOf: mine) }
            #expect(conflict?.code == .conflict)
            #expect(conflict?.message.contains("item \(items[1].id)") == true, "\(conflict?.message ?? "")")
            #expect(try await store.items.item(id: items[0].id) == items[0], "nothing written")
            #expect(try await store.items.item(id: items[2].id) == items[2], "nothing written")

            // A deleted item: not found, named; nothing written.
            try await store.items.delete(id: items[2].id)
            let gone = await #expect(throws: StoreError.self) {
                try await store.items.update(contentsOf: [mine[0], mine[2]])
            }
            #expect(gone?.code == .notFound)
            #expect(gone?.message.contains("item \(items[2].id)") == true, "\(gone?.message ?? "")")
            #expect(try await store.items.item(id: items[0].id) == items[0])

            // The same item twice is refused before anything is written.
            let twice = await #expect(throws: StoreError.self) {
                try await store.items.update(contentsOf: [mine[0], mine[0]])
            }
            #expect(twice?.code == .invalidValue)
            // A broken rule names the item too.
            var empty = items[0]
            empty.priority = 7
            let invalid = await #expect(throws: StoreError.self) {
                try await store.items.update(contentsOf: [empty])
            }
            #expect(invalid?.code == .invalidValue)
            #expect(try await store.items.item(id: items[0].id) == items[0])
        }
    }

    @Test(arguments: Backend.available)
    func restorePutsDeletedItemsBackExactly(_ backend: Backend) async throws {
        try await backend.withStore { (store: Store) async throws in
            let (_, original) = try await fill(store)
            var edited = original[0]
            edited.notes = "edited notes with zebra"
            let items = [try await store.items.update(edited), original[1], original[2]]
            #expect(try await store.items.deleteItems(ids: items.map(\.id)) == 3)
            try await store.items.restore(items)
            for item in items { #expect(try await store.items.item(id: item.id) == item, "ID, notes, times, version") }
            // Found by search again (the search index follows).
            let found = try await store.items.items(matching: ItemQuery(text: "zebra"))
            #expect(found.map(\.id) == [items[0].id])
            // And it is an item like any other: an update goes on from its version.
            var again = items[0]
            again.title = "One, again"
            #expect(try await store.items.update(again).version == items[0].version + 1)
        }
    }

    @Test(arguments: Backend.available)
    func restoreRefusesAnExistingIDOrAGoneOwner(_ backend: Backend) async throws {
        try await backend.withStore { (store: Store) async throws in
            let (ann, items) = try await fill(store)
            try await store.items.delete(id: items[0].id)
            // items[1] still exists: nothing is restored, and the message names it.
            let exists = await #expect(throws: StoreError.self) { try await store.items.restore([items[0], items[1]]) }
            #expect(exists?.code == .conflict)
            #expect(exists?.message.contains("item \(items[1].id)") == true, "\(exists?.message ?? "")")
            #expect(try await store.items.item(id: items[0].id) == nil, "nothing restored")

            // An owner deleted since (which deletes their items): refused, naming the item.
            let bob = try await store.users.insert(NewUser(name: "Bob", email: "bob@example.com"))
            try await store.items.delete(id: items[1].id)
            var bobs = items[1]
            bobs.userID = bob
            try await store.users.delete(id: bob)
            let orphan = await #expect(throws: StoreError.self) { try await store.items.restore([items[0], bobs]) }
            #expect(orphan?.code == .unknownUser)
            #expect(orphan?.message.contains("item \(items[1].id)") == true, "\(orphan?.message ?? "")")
            #expect(try await store.items.item(id: items[0].id) == nil, "nothing restored")
            _ = ann
        }
    }

    @Test(arguments: Backend.available)
    func restoredIDsAreNeverHandedOutAgain(_ backend: Backend) async throws {
        try await backend.withStore { (store: Store) async throws in
            let (ann, items) = try await fill(store)
            try await store.items.delete(id: items[2].id)
            try await store.items.restore([items[2]])
            let next = try await store.items.insert(NewItem(userID: ann, title: "After the restore"))
            #expect(next > items[2].id)
            // An ID far past anything handed out (an item from an import into another store).
            let far = Item(
                id: Item.ID(next.rawValue + 1_000), userID: ann, title: "Far", notes: nil, status: .open, priority: 0,
                createdAt: items[0].createdAt, updatedAt: items[0].updatedAt, version: 4)
            try await store.items.restore([far])
            let after = try await store.items.insert(contentsOf: [
                NewItem(userID: ann, title: "After far 1"), NewItem(userID: ann, title: "After far 2"),
            ])
            #expect(after.allSatisfy { $0 > far.id }, "the sequence went past the restored ID")
            #expect(try await store.items.item(id: far.id) == far)
        }
    }

    @Test(arguments: Backend.available)
    func liveQueriesSeeEachBatchAsOneChange(_ backend: Backend) async throws {
        try await backend.withStore { (store: Store) async throws in
            let (_, items) = try await fill(store)
            let live = try await store.liveItems(matching: ItemQuery(), limit: 10)
            #expect(await eventually { live.value.success?.totalCount == 3 })
            var runs = store.liveQueryRuns
            let priorities = items.map { item in
                var item = item
                item.priority = 2
                return item
            }
            let saved = try await store.items.update(contentsOf: priorities)
            #expect(await eventually { live.value.success?.items.allSatisfy { $0.priority == 2 } == true })
            // At most one run: a backend with a change log updates the window from it (no run).
            #expect(store.liveQueryRuns - runs <= 1, "three updates in one transaction: one run at most")

            runs = store.liveQueryRuns
            #expect(try await store.items.deleteItems(ids: saved.map(\.id)) == 3)
            #expect(await eventually { live.value.success?.totalCount == 0 })
            #expect(store.liveQueryRuns - runs <= 1)

            runs = store.liveQueryRuns
            try await store.items.restore(saved)
            #expect(await eventually { live.value.success?.totalCount == 3 })
            #expect(store.liveQueryRuns - runs <= 1, "three restores in one transaction: one run at most")
            #expect(live.value.success?.items.sorted { $0.id < $1.id } == saved.sorted { $0.id < $1.id })
        }
    }

    /// Deleting the newest item and adding another never hands its ID out again, so the
    /// deleted item can come back under its own ID (undo) even after others added items.
    @Test(arguments: Backend.available)
    func aDeletedItemsIDIsNeverHandedOutAgain(_ backend: Backend) async throws {
        try await backend.withStore { (store: Store) async throws in
            let (ann, items) = try await fill(store)
            let newest = try #require(items.last)
            try await store.items.delete(id: newest.id)
            let added = try await store.items.insert(NewItem(userID: ann, title: "Added by a colleague"))
            #expect(added != newest.id)
            #expect(added.rawValue > newest.id.rawValue)
            try await store.items.restore([newest])
            #expect(try await store.items.item(id: newest.id) == newest)
            #expect(try await store.items.item(id: added)?.title == "Added by a colleague")
        }
    }
}
