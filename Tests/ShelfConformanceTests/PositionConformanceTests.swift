import Foundation
import ShelfStore
import Testing

/// `count(matching:before:)` on every backend: the position of an item in any order, with
/// and without a search, is the number of items before it.
@Suite("Conformance: positions")
struct PositionConformanceTests {
    @Test(arguments: Backend.available)
    func theCountBeforeAnItemIsItsPositionInEveryOrder(_ backend: Backend) async throws {
        try await backend.withStore { (store: Store) async throws in
            let ann = try await store.users.insert(NewUser(name: "Ann", email: "ann@example.com"))
            let bob = try await store.users.insert(NewUser(name: "bob", email: "bob@example.com"))
            let words = ["moth", "lamp", "moth lamp", "river", "Moth trap"]
            _ = try await store.items.insert(
                contentsOf: (0..<30).map { n in
                    NewItem(
                        userID: n % 3 == 0 ? bob : ann, title: "\(words[n % words.count]) \(n % 7)",
                        priority: n % 4, createdAt: Date(timeIntervalSince1970: Double(1_000 + n / 2)))
                })
            for field in ItemQuery.SortField.allCases {
                for direction in [ItemQuery.SortDirection.ascending, .descending] {
                    for text in ["", "moth"] {
                        let query = ItemQuery(text: text, sortField: field, sortDirection: direction)
                        let all = try await store.items.items(matching: query)
                        for index in [0, 1, all.count / 2, all.count - 1] {
                            let count = try await store.items.count(matching: query, before: ItemCursor(all[index]))
                            #expect(count == index, "\(field) \(direction) “\(text)” at \(index)")
                        }
                    }
                }
            }
        }
    }
}
