#if PostgreSQL
    import Foundation
    import ShelfPostgres
    import ShelfStore
    import Testing

    /// Search folds accents and Unicode normal forms as SQLite's unicode61 tokenizer
    /// (remove_diacritics 2) does; values too long for an index or a tsvector.
    @Suite(.enabled(if: PostgresServer.url != nil)) struct PostgresSearchFoldTests {
        @Test(arguments: [
            ("Café au lait", "cafe"),
            ("Zürich trip", "zurich"),
            ("Zoe\u{308} notes", "zo\u{EB}"),
            ("Zoe\u{308} notes", "zoe"),
            ("Zo\u{EB} notes", "zoe\u{308}"),
            ("eclair", "\u{E9}clair"),
        ])
        func searchFoldsAccentsAsSQLiteDoes(title: String, query: String) async throws {
            try await Scratch.withBackend { store, _ in
                let ann = try await store.users.insert(NewUser(name: "Ann", email: "ann@example.com"))
                let id = try await store.items.insert(NewItem(userID: ann, title: title))
                _ = try await store.items.insert(NewItem(userID: ann, title: "something else"))
                #expect(try await store.items.items(matching: ItemQuery(text: query)).map(\.id) == [id])
            }
        }

        @Test func aQueryOfCombiningMarksAloneIsNoSyntaxError() async throws {
            try await Scratch.withBackend { store, _ in
                let ann = try await store.users.insert(NewUser(name: "Ann", email: "ann@example.com"))
                _ = try await store.items.insert(NewItem(userID: ann, title: "Zoe\u{308}"))
                _ = try await store.items.items(matching: ItemQuery(text: "\u{308} zoe"))
            }
        }

        @Test func aTitleTooLongForItsIndexIsAnInvalidValue() async throws {
            try await Scratch.withBackend { store, _ in
                let ann = try await store.users.insert(NewUser(name: "Ann", email: "ann@example.com"))
                // Random letters, which do not compress: the index row stays over 2,704 bytes.
                var generator = SystemRandomNumberGenerator()
                let letters = Array("abcdefghijklmnopqrstuvwxyz0123456789")
                let title = String((0..<6000).map { _ in letters[Int(generator.next() % 36)] })
                await #expect {
                    try await store.items.insert(NewItem(userID: ann, title: title))
                } throws: { error in
                    // The store's rule (at most 500 characters) refuses it before the server would.
                    StoreError.code(of: error) == .invalidValue
                        && ("\(error)".contains("too long") || "\(error)".contains("at most 500 characters"))
                }
            }
        }

        @Test func notesOfManyDistinctWordsAreStoredAndTheirStartIsSearchable() async throws {
            try await Scratch.withBackend { store, _ in
                let ann = try await store.users.insert(NewUser(name: "Ann", email: "ann@example.com"))
                let words = (0..<150_000).map { "w\(String($0, radix: 26))x" }
                let notes = words.joined(separator: " ")
                let id = try await store.items.insert(NewItem(userID: ann, title: "many words", notes: notes))
                #expect(try await store.items.item(id: id)?.notes == notes)
                // Within the first 100,000 characters: found; past them: not indexed.
                #expect(try await store.items.items(matching: ItemQuery(text: words[10])).map(\.id) == [id])
                #expect(try await store.items.items(matching: ItemQuery(text: words[149_000])).isEmpty)
            }
        }
    }
#endif
