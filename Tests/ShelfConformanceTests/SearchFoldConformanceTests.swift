import Foundation
import ShelfStore
import Testing

/// Search folds letter case and accents the same on every backend: as SQLite's unicode61
/// tokenizer (remove_diacritics 2) does, which PostgreSQL's `shelf_search_fold` copies
/// (Migrations/postgres/0008).
@Suite("Conformance: search folding")
struct SearchFoldConformanceTests {
    /// A title, a query, and whether the query finds the title.
    struct Case: Sendable, CustomTestStringConvertible {
        let title: String
        let query: String
        let finds: Bool

        var testDescription: String { "\(title) ← \(query): \(finds ? "found" : "not found")" }
    }

    static let cases: [Case] = [
        // Final sigma is sigma, in the title and in the query.
        Case(title: "ΟΔΟΣ", query: "οδος", finds: true),
        Case(title: "οδος", query: "ΟΔΟΣ", finds: true),
        Case(title: "οδοσ", query: "οδος", finds: true),
        // Compatibility letters unicode61 folds to their letter: micro sign, long s, curly beta.
        Case(title: "5 µg", query: "μg", finds: true),
        Case(title: "Meſſe", query: "messe", finds: true),
        Case(title: "ϐιβλίο", query: "βιβλίο", finds: true),
        // Latin accents go, in either normal form.
        Case(title: "Zürich", query: "zurich", finds: true),
        Case(title: "Zu\u{308}rich", query: "zürich", finds: true),
        Case(title: "İstanbul", query: "istanbul", finds: true),
        // Greek and Cyrillic accented letters are letters of their own (unicode61 keeps
        // them), but their letter case folds.
        Case(title: "Αθήνα", query: "αθηνα", finds: false),
        Case(title: "ΑΘΉΝΑ", query: "αθήνα", finds: true),
        Case(title: "Ёлка", query: "ёлка", finds: true),
        Case(title: "ёлка", query: "елка", finds: false),
        Case(title: "Йод", query: "иод", finds: false),
        // ß is not ss (no full case folding in either).
        Case(title: "Straße", query: "strasse", finds: false),
        Case(title: "STRASSE", query: "strasse", finds: true),
    ]

    @Test(arguments: Backend.available, cases)
    func searchFoldsAsUnicode61(_ backend: Backend, _ example: Case) async throws {
        try await backend.withStore { store in
            let ann = try await store.users.insert(NewUser(name: "Ann", email: "ann@example.com"))
            let id = try await store.items.insert(NewItem(userID: ann, title: example.title))
            _ = try await store.items.insert(NewItem(userID: ann, title: "something else"))
            let found = try await store.items.items(matching: ItemQuery(text: example.query)).map(\.id)
            #expect(found == (example.finds ? [id] : []))
        }
    }
}
