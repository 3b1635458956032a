import Foundation
import ShelfStore
import Testing

@Suite("Full-text search with hostile input")
struct FullTextSearchTests {
    static let titles = [
        "Moth trap", "NEAR the door", "AND OR NOT", "quote \"this\" please", "C++ primer", "don't panic",
        "naïve café", "(parenthesised)", "star*", "dash-separated words", "title:colon",
        "Robert'); DROP TABLE items;--",
    ]

    static let hostileInputs = [
        "\"", "\"\"", "'", "*", "**", "-", "--", "(", ")", "()", "(moth", "moth)", "NEAR", "NEAR(",
        "NEAR(moth trap, 2)",
        "AND", "OR", "NOT", "moth AND", "OR moth", "NOT moth", "moth -trap", "^moth", "title:moth", "title : moth",
        "'; DROP TABLE items; --", "\"; DELETE FROM items; --", "%", "_", "\\", "{moth}", "[x]", "+", ":", "^",
        "moth*", "*moth", "mo\"th", "\u{0}", "\u{1b}[31m", "🦋", "ü", "  ", "",
    ]

    @Test(arguments: hostileInputs)
    func hostileInputNeverFailsNorChangesMeaning(input: String) async throws {
        let fixture = try await Fixture()
        _ = try await fixture.store.items.insert(
            contentsOf: Self.titles.map { NewItem(userID: fixture.ann, title: $0) })
        let query = ItemQuery(text: input)
        let count = try await fixture.store.items.count(matching: query)
        let items = try await fixture.store.items.items(matching: query)
        #expect(items.count == count)
        // Whatever matched contains every word of the input as a prefix of some word.
        let words = input.lowercased().split { !($0.isLetter || $0.isNumber) }
        for item in items {
            let itemWords = item.title.lowercased().folding(options: .diacriticInsensitive, locale: nil)
                .split { !($0.isLetter || $0.isNumber) }
            for word in words {
                let folded = String(word).folding(options: .diacriticInsensitive, locale: nil)
                #expect(itemWords.contains { $0.hasPrefix(folded) }, "\(item.title) does not contain \(word)")
            }
        }
        #expect(try await fixture.itemCount() == Self.titles.count, "nothing was deleted")
    }

    @Test(arguments: [
        ("mot", ["Moth trap"]), ("NEAR", ["NEAR the door"]), ("and or", ["AND OR NOT"]),
        ("\"this\"", ["quote \"this\" please"]),
        ("c++ pri", ["C++ primer"]), ("don't", ["don't panic"]), ("naive cafe", ["naïve café"]),
        ("(parenth", ["(parenthesised)"]),
        ("dash-sep", ["dash-separated words"]), ("title:col", ["title:colon"]),
        ("drop table", ["Robert'); DROP TABLE items;--"]),
        ("trap moth", ["Moth trap"]),
    ])
    func operatorsAreSearchedAsWords(input: String, expected: [String]) async throws {
        let fixture = try await Fixture()
        _ = try await fixture.store.items.insert(
            contentsOf: Self.titles.map { NewItem(userID: fixture.ann, title: $0) })
        let found = try await fixture.store.items.items(matching: ItemQuery(text: input)).map(\.title)
        #expect(found == expected)
    }

    @Test func searchesNotesAndFollowsUpdates() async throws {
        let fixture = try await Fixture()
        let items = fixture.store.items
        let id = try await items.insert(NewItem(userID: fixture.ann, title: "Shopping", notes: "buy lanterns"))
        #expect(try await items.count(matching: ItemQuery(text: "lant")) == 1)
        var item = try #require(try await items.item(id: id))
        item.notes = "buy candles"
        _ = try await items.update(item)
        #expect(try await items.count(matching: ItemQuery(text: "lant")) == 0)
        #expect(try await items.count(matching: ItemQuery(text: "cand")) == 1)
    }

    @Test(arguments: ["", "   ", "()", "--", "\"\"", "*"])
    func textWithoutWordsDoesNotFilter(input: String) async throws {
        let fixture = try await Fixture()
        _ = try await fixture.store.items.insert(
            contentsOf: Self.titles.map { NewItem(userID: fixture.ann, title: $0) })
        #expect(try await fixture.store.items.count(matching: ItemQuery(text: input)) == Self.titles.count)
    }
}
