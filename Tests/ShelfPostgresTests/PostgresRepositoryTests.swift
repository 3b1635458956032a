#if PostgreSQL
    import Foundation
    import ShelfPostgres
    import ShelfStore
    import Testing

    @Suite(.enabled(if: PostgresServer.url != nil)) struct PostgresRepositoryTests {
        @Test func usersRoundTripWithUniqueEmailsInAnyLetterCase() async throws {
            try await Scratch.withBackend { store, _ in
                let ann = try await store.users.insert(NewUser(name: "Ann", email: "  Ann@Example.com "))
                let stored = try await store.users.user(id: ann)
                #expect(stored?.email == "Ann@Example.com")
                #expect(try await store.users.user(email: "ann@EXAMPLE.com")?.id == ann)
                await #expect {
                    try await store.users.insert(NewUser(name: "Other", email: "ANN@example.COM"))
                } throws: { StoreError.code(of: $0) == .duplicateEmail }
                // Every script's letters fold (Email.key), the same as on SQLite: Ä and ä are one email.
                let upper = try await store.users.insert(NewUser(name: "Ä", email: "Äda@example.com"))
                await #expect {
                    try await store.users.insert(NewUser(name: "ä", email: "äda@example.com"))
                } throws: { StoreError.code(of: $0) == .duplicateEmail }
                #expect(try await store.users.user(email: "äda@example.com")?.id == upper)

                var renamed = try #require(stored)
                renamed.name = "Ann B."
                try await store.users.update(renamed)
                #expect(try await store.users.user(id: ann)?.name == "Ann B.")
                try await store.users.delete(id: ann)
                #expect(try await store.users.user(id: ann) == nil)
                await #expect { try await store.users.delete(id: ann) } throws: { StoreError.code(of: $0) == .notFound }
            }
        }

        @Test func userRulesReadAsOnSQLite() async throws {
            try await Scratch.withBackend { store, _ in
                await #expect {
                    try await store.users.insert(NewUser(name: " \t", email: "a@b.c"))
                } throws: { "\($0)" == "a user's name must not be empty" }
                await #expect {
                    try await store.users.insert(NewUser(name: "A", email: "no-at-sign"))
                } throws: { "\($0)" == "a user's email must look like name@host (at most 320 characters)" }
                await #expect {
                    try await store.users.insert(contentsOf: [
                        NewUser(name: "A", email: "a@b.c"), NewUser(name: "", email: "b@b.c"),
                    ])
                } throws: { "\($0)" == "user 2 of 2: a user's name must not be empty" }
                let users = try await store.users.users()
                #expect(users.isEmpty)
            }
        }

        @Test func itemsKeepOptimisticVersions() async throws {
            try await Scratch.withBackend { store, _ in
                let ann = try await store.users.insert(NewUser(name: "Ann", email: "ann@example.com"))
                let id = try await store.items.insert(NewItem(userID: ann, title: "Read Dune", notes: "soon"))
                let item = try #require(try await store.items.item(id: id))
                #expect(item.version == 1)
                var edited = item
                edited.title = "Read Dune Messiah"
                let saved = try await store.items.update(edited)
                #expect(saved.version == 2 && saved.title == "Read Dune Messiah")
                #expect(saved.updatedAt >= item.updatedAt)
                await #expect { try await store.items.update(edited) } throws: { error in
                    StoreError.code(of: error) == .conflict && "\(error)".contains("the store has version 2")
                }
                await #expect {
                    try await store.items.insert(NewItem(userID: User.ID(999), title: "x"))
                } throws: { StoreError.code(of: $0) == .unknownUser }
                await #expect {
                    try await store.items.insert(NewItem(userID: ann, title: "x", priority: 9))
                } throws: { "\($0)" == "an item's priority must be between 0 and 3" }
                await #expect {
                    try await store.items.insert(contentsOf: [
                        NewItem(userID: ann, title: "ok"), NewItem(userID: ann, title: " "),
                    ])
                } throws: { "\($0)" == "item 2 of 2: an item's title must not be empty" }
                #expect(try await store.items.count(matching: ItemQuery()) == 1)
                try await store.items.delete(id: id)
                await #expect { try await store.items.update(saved) } throws: { StoreError.code(of: $0) == .notFound }
                await #expect { try await store.items.delete(id: id) } throws: { StoreError.code(of: $0) == .notFound }
                #expect(try await store.items.deleteItems(ids: [id, Item.ID(12345)]) == 0)
            }
        }

        @Test func textWithNULIsRefusedAsAnInvalidValue() async throws {
            try await Scratch.withBackend { store, _ in
                let ann = try await store.users.insert(NewUser(name: "Ann", email: "ann@example.com"))
                await #expect {
                    try await store.items.insert(NewItem(userID: ann, title: "a\u{0}b"))
                } throws: { error in
                    StoreError.code(of: error) == .invalidValue && "\(error)".contains("NUL character")
                }
            }
        }

        @Test func aClosedStoreFailsClearly() async throws {
            try await Scratch.withBackend { store, _ in
                await store.close()
                await store.close()
                await #expect { _ = try await store.users.users() } throws: { error in
                    StoreError.code(of: error) == .closed && "\(error)".contains("closed")
                }
            }
        }

        @Test func deletingAUserDeletesTheirItems() async throws {
            try await Scratch.withBackend { store, _ in
                let ann = try await store.users.insert(NewUser(name: "Ann", email: "ann@example.com"))
                try await store.items.insert(NewItem(userID: ann, title: "one"))
                try await store.users.delete(id: ann)
                #expect(try await store.items.count(matching: ItemQuery()) == 0)
            }
        }

        @Test(arguments: ItemQuery.SortField.allCases)
        func pagesForwardAndBackwardInEveryOrder(field: ItemQuery.SortField) async throws {
            try await Scratch.withBackend { store, _ in
                let ann = try await store.users.insert(NewUser(name: "Ann", email: "ann@example.com"))
                let bob = try await store.users.insert(NewUser(name: "Bob", email: "bob@example.com"))
                let titles = [
                    "apple", "Apple", "banana", "Ärger", "ärger", "zebra", "Zebra", "éclair", "_x", "a b", "[", "~",
                ]
                var new: [NewItem] = []
                for index in 0..<60 {
                    new.append(
                        NewItem(
                            userID: index % 3 == 0 ? bob : ann, title: titles[index % titles.count],
                            status: index % 2 == 0 ? .open : .done, priority: index % 4,
                            createdAt: Date(timeIntervalSince1970: Double(1_700_000_000 + index % 7))))
                }
                try await store.items.insert(contentsOf: new)
                let all = try await store.items.items(
                    matching: ItemQuery(sortField: .created, sortDirection: .ascending))
                for direction in [ItemQuery.SortDirection.ascending, .descending] {
                    for owner in [nil, ann] {
                        let query = ItemQuery(owner: owner, sortField: field, sortDirection: direction)
                        let expected = Self.sorted(all.filter { owner == nil || $0.userID == owner }, by: query)
                        // Forward, 7 at a time.
                        var forward: [Item] = []
                        var cursor: ItemCursor?
                        while true {
                            let page = try await store.items.items(matching: query, after: cursor, limit: 7)
                            forward += page
                            guard let last = page.last else { break }
                            cursor = ItemCursor(last)
                        }
                        #expect(forward.map(\.id) == expected.map(\.id), "\(field) \(direction) forward")
                        // Backward from the end, 5 at a time.
                        var backward: [Item] = []
                        var before: ItemCursor?
                        while true {
                            let page = try await store.items.items(matching: query, before: before, limit: 5)
                            backward = page + backward
                            guard let first = page.first else { break }
                            before = ItemCursor(first)
                        }
                        #expect(backward.map(\.id) == expected.map(\.id), "\(field) \(direction) backward")
                    }
                }
                #expect(
                    try await store.items.count(matching: ItemQuery(owner: ann, status: .open))
                        == all.filter { $0.userID == ann && $0.status == .open }.count)
            }
        }

        /// The store's order: the sort key (titles with ASCII letters folded, then by code
        /// point, as SQLite's NOCASE), then the ID, both in the query's direction.
        private static func sorted(_ items: [Item], by query: ItemQuery) -> [Item] {
            func fold(_ text: String) -> [UInt8] {
                text.utf8.map { (65...90).contains($0) ? $0 + 32 : $0 }
            }
            func less(_ a: Item, _ b: Item) -> Bool {
                switch query.sortField {
                case .created where a.createdAt != b.createdAt: return a.createdAt < b.createdAt
                case .updated where a.updatedAt != b.updatedAt: return a.updatedAt < b.updatedAt
                case .priority where a.priority != b.priority: return a.priority < b.priority
                case .title where fold(a.title) != fold(b.title):
                    return fold(a.title).lexicographicallyPrecedes(fold(b.title))
                // Ann sorts before Bob by name, and has the lower ID.
                case .owner where a.userID != b.userID: return a.userID < b.userID
                default: return a.id < b.id
                }
            }
            let ascending = items.sorted(by: less)
            return query.sortDirection == .ascending ? ascending : ascending.reversed()
        }

        @Test func searchMatchesEveryWordAsAPrefixAndNoInputFails() async throws {
            try await Scratch.withBackend { store, _ in
                let ann = try await store.users.insert(NewUser(name: "Ann", email: "ann@example.com"))
                let moth = try await store.items.insert(
                    NewItem(userID: ann, title: "Moth book", notes: "ask ann@example.com"))
                try await store.items.insert(NewItem(userID: ann, title: "Other"))
                #expect(try await store.items.items(matching: ItemQuery(text: "mot BO")).map(\.id) == [moth])
                #expect(try await store.items.items(matching: ItemQuery(text: "example")).map(\.id) == [moth])
                #expect(try await store.items.count(matching: ItemQuery(text: "moth zzz")) == 0)
                let hostile = [
                    "'", "''", "\"", "\\", "\\'", "&|!():*<>", "moth & !", "moth:*", "a\u{0}b", "🦋 moth",
                    "'; DROP TABLE items; --", "(((", "<->", "\u{202E}moth", "",
                ]
                for text in hostile {
                    _ = try await store.items.items(matching: ItemQuery(text: text), limit: 10)
                    _ = try await store.items.count(matching: ItemQuery(text: text))
                }
                // An emoji is searched for, not ignored: no item holds 🦋.
                #expect(try await store.items.items(matching: ItemQuery(text: "🦋 moth")).isEmpty)
                #expect(try await store.items.count(matching: ItemQuery(text: "&|!():*<>")) == 2)
            }
        }
    }
#endif
