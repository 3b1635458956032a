import Foundation
import ShelfStore
import Testing

/// The repositories' contracts, on every backend.
@Suite("Conformance: users and items")
struct RepositoryConformanceTests {
    @Test(arguments: Backend.available)
    func usersRoundTripWithNormalizedUniqueEmails(_ backend: Backend) async throws {
        try await backend.withStore { (store: Store) async throws in
            let ann = try await store.users.insert(NewUser(name: "Ann", email: "  Ann@Example.com "))
            let stored = try #require(try await store.users.user(id: ann))
            #expect(stored.name == "Ann")
            #expect(stored.email == "Ann@Example.com", "trimmed, case kept")
            #expect(try await store.users.user(email: "ann@EXAMPLE.com")?.id == ann)
            let duplicate = await #expect(throws: StoreError.self) {
                try await store.users.insert(NewUser(name: "Other", email: "ANN@example.COM"))
            }
            #expect(duplicate?.code == .duplicateEmail)
            let invalid = await #expect(throws: StoreError.self) {
                try await store.users.insert(NewUser(name: "  ", email: "x@example.com"))
            }
            #expect(invalid?.code == .invalidValue)
            let malformed = await #expect(throws: StoreError.self) {
                try await store.users.insert(NewUser(name: "X", email: "no-at-sign"))
            }
            #expect(malformed?.code == .invalidValue)
            var renamed = stored
            renamed.name = "Annie"
            try await store.users.update(renamed)
            #expect(try await store.users.user(id: ann)?.name == "Annie")
            #expect(try await store.users.users().map(\.name) == ["Annie"])
        }
    }

    @Test(arguments: Backend.available)
    func usersAreOrderedByNameIgnoringCaseThenID(_ backend: Backend) async throws {
        try await backend.withStore { (store: Store) async throws in
            let ids = try await store.users.insert(contentsOf: [
                NewUser(name: "bob", email: "b1@example.com"), NewUser(name: "Alice", email: "a@example.com"),
                NewUser(name: "Bob", email: "b2@example.com"), NewUser(name: "carol", email: "c@example.com"),
            ])
            let users = try await store.users.users()
            #expect(users.map(\.name) == ["Alice", "bob", "Bob", "carol"])
            #expect(users.map(\.id) == [ids[1], ids[0], ids[2], ids[3]])
        }
    }

    @Test(arguments: Backend.available)
    func aFailedBatchStoresNothing(_ backend: Backend) async throws {
        try await backend.withStore { (store: Store) async throws in
            let error = await #expect(throws: StoreError.self) {
                try await store.users.insert(contentsOf: [
                    NewUser(name: "One", email: "one@example.com"), NewUser(name: "Two", email: "ONE@example.com"),
                ])
            }
            #expect(error?.code == .duplicateEmail)
            #expect(try await store.users.users().isEmpty)
        }
    }

    @Test(arguments: Backend.available)
    func itemsFollowOptimisticConcurrency(_ backend: Backend) async throws {
        try await backend.withStore { (store: Store) async throws in
            let ann = try await store.users.insert(NewUser(name: "Ann", email: "ann@example.com"))
            let id = try await store.items.insert(NewItem(userID: ann, title: "Read Dune", notes: "twice", priority: 2))
            let first = try #require(try await store.items.item(id: id))
            #expect(first.version == 1)
            #expect(first.status == .open)
            #expect(first.notes == "twice")
            var edited = first
            edited.title = "Read Dune Messiah"
            edited.status = .done
            let saved = try await store.items.update(edited)
            #expect(saved.version == 2)
            #expect(saved.title == "Read Dune Messiah")
            #expect(saved.updatedAt >= first.updatedAt)
            var stale = first
            stale.title = "Lost update"
            let conflict = await #expect(throws: StoreError.self) { try await store.items.update(stale) }
            #expect(conflict?.code == .conflict)
            #expect(try await store.items.item(id: id)?.title == "Read Dune Messiah", "nothing written")
            try await store.items.delete(id: id)
            #expect(try await store.items.item(id: id) == nil)
            let gone = await #expect(throws: StoreError.self) { try await store.items.update(saved) }
            #expect(gone?.code == .notFound)
            let missing = await #expect(throws: StoreError.self) { try await store.items.delete(id: id) }
            #expect(missing?.code == .notFound)
        }
    }

    @Test(arguments: Backend.available)
    func itemRulesAreEnforced(_ backend: Backend) async throws {
        try await backend.withStore { (store: Store) async throws in
            let ann = try await store.users.insert(NewUser(name: "Ann", email: "ann@example.com"))
            let unknown = await #expect(throws: StoreError.self) {
                try await store.items.insert(NewItem(userID: User.ID(rawValue: 999_999), title: "Orphan"))
            }
            #expect(unknown?.code == .unknownUser)
            for bad in [NewItem(userID: ann, title: " \t"), NewItem(userID: ann, title: "P", priority: 4)] {
                let error = await #expect(throws: StoreError.self) { try await store.items.insert(bad) }
                #expect(error?.code == .invalidValue)
            }
            #expect(try await store.items.count(matching: ItemQuery()) == 0)
        }
    }

    @Test(arguments: Backend.available)
    func deletingAUserDeletesTheirItems(_ backend: Backend) async throws {
        try await backend.withStore { (store: Store) async throws in
            let ann = try await store.users.insert(NewUser(name: "Ann", email: "ann@example.com"))
            let bob = try await store.users.insert(NewUser(name: "Bob", email: "bob@example.com"))
            try await store.items.insert(contentsOf: (1...3).map { NewItem(userID: ann, title: "A\($0)") })
            let kept = try await store.items.insert(NewItem(userID: bob, title: "B"))
            try await store.users.delete(id: ann)
            #expect(try await store.items.items(matching: ItemQuery()).map(\.id) == [kept])
            #expect(try await store.items.count(matching: ItemQuery()) == 1)
            let ids = try await store.items.insert(contentsOf: [NewItem(userID: bob, title: "B2")])
            #expect(try await store.items.deleteItems(ids: ids + [kept, Item.ID(rawValue: 424_242)]) == 2)
        }
    }

    @Test(arguments: Backend.available)
    func hostileTextIsStoredExactly(_ backend: Backend) async throws {
        try await backend.withStore { (store: Store) async throws in
            let ann = try await store.users.insert(NewUser(name: "Zoë 👩🏽‍💻", email: "zoe@example.com"))
            let titles = [
                "e\u{301}t\u{E9} — ✔︎ RTL \u{202E}abc\u{202C}", "line\u{2028}sep",
                "quote ' \" \\ ; DROP TABLE items; --",
                String(repeating: "😀", count: 500),
            ]
            for title in titles {
                let id = try await store.items.insert(NewItem(userID: ann, title: title, notes: "\u{1F600}\u{FE0F}"))
                let item = try #require(try await store.items.item(id: id))
                #expect(item.title.unicodeScalars.elementsEqual(title.unicodeScalars))
                #expect(item.notes == "\u{1F600}\u{FE0F}")
            }
            // Notes have no length limit: 100,000 words.
            let long = String(repeating: "long ", count: 20_000)
            let noted = try await store.items.insert(NewItem(userID: ann, title: "Long notes", notes: long))
            #expect(try await store.items.item(id: noted)?.notes == long)
            #expect(try await store.users.user(id: ann)?.name == "Zoë 👩🏽‍💻")
        }
    }

    /// Titles and names are sort keys with an index each: both backends take 500 characters
    /// of any kind (4-byte ones included) and refuse 501, before any SQL runs.
    @Test(arguments: Backend.available)
    func titlesAndNamesHaveOneLimitOnEveryBackend(_ backend: Backend) async throws {
        try await backend.withStore { (store: Store) async throws in
            let longest = String(repeating: "😀", count: 500)
            let ann = try await store.users.insert(NewUser(name: longest, email: "ann@example.com"))
            let id = try await store.items.insert(NewItem(userID: ann, title: longest))
            #expect(try await store.items.item(id: id)?.title == longest)
            let items = try await store.items.items(matching: ItemQuery(sortField: .title, sortDirection: .ascending))
            #expect(items.map(\.id) == [id])
            let tooLong = longest + "x"
            let title = await #expect(throws: StoreError.self) {
                try await store.items.insert(NewItem(userID: ann, title: tooLong))
            }
            #expect(title?.code == .invalidValue)
            #expect(title?.message.contains("at most 500 characters") == true)
            var edited = try #require(try await store.items.item(id: id))
            edited.title = tooLong
            let update = await #expect(throws: StoreError.self) { try await store.items.update(edited) }
            #expect(update?.code == .invalidValue)
            let name = await #expect(throws: StoreError.self) {
                try await store.users.insert(NewUser(name: tooLong, email: "bob@example.com"))
            }
            #expect(name?.code == .invalidValue)
            #expect(try await store.items.count(matching: ItemQuery()) == 1)
        }
    }
}
