import Foundation
import ShelfStore
import Testing

/// Keyset pages, counts and search, on every backend: every ordering, both directions,
/// with and without filters, against the same items sorted in Swift.
@Suite("Conformance: pages, counts and search")
struct PagingConformanceTests {
    /// Items with ties on every sort field, letter-case twins, and words to search.
    static func fill(_ store: Store) async throws -> [Item] {
        let ann = try await store.users.insert(NewUser(name: "Ann", email: "ann@example.com"))
        let bob = try await store.users.insert(NewUser(name: "Bob", email: "bob@example.com"))
        let words = [
            "red apple", "Red APPLE", "green pear", "blue moth", "Mothra returns", "zebra", "Émile", "apple pie",
        ]
        let base = Date(timeIntervalSince1970: 1_700_000_000)
        var new: [NewItem] = []
        for index in 0..<61 {
            new.append(
                NewItem(
                    userID: index % 3 == 0 ? bob : ann, title: "\(words[index % words.count])",
                    notes: index % 4 == 0 ? "notes about redwood \(index)" : nil,
                    status: index % 5 == 0 ? .done : .open, priority: index % 4,
                    createdAt: base.addingTimeInterval(Double(index / 3))))
        }
        _ = try await store.items.insert(contentsOf: new)
        return try await store.items.items(matching: ItemQuery(sortField: .created, sortDirection: .ascending))
    }

    /// SQLite's NOCASE: ASCII letters folded, then bytes.
    static func folded(_ text: String) -> [UInt8] {
        text.utf8.map { $0 >= 65 && $0 <= 90 ? $0 + 32 : $0 }
    }

    static func expected(_ items: [Item], _ query: ItemQuery) -> [Item] {
        let ascending = items.sorted { a, b in
            switch query.sortField {
            case .created: return (a.createdAt, a.id) < (b.createdAt, b.id)
            case .updated: return (a.updatedAt, a.id) < (b.updatedAt, b.id)
            case .priority: return (a.priority, a.id) < (b.priority, b.id)
            case .title:
                let (x, y) = (folded(a.title), folded(b.title))
                return x == y ? a.id < b.id : x.lexicographicallyPrecedes(y)
            // Ann (the first user) sorts before Bob: names and IDs agree in `fill`.
            case .owner: return (a.userID, a.id) < (b.userID, b.id)
            }
        }
        return query.sortDirection == .ascending ? ascending : ascending.reversed()
    }

    static func matches(_ item: Item, _ query: ItemQuery) -> Bool {
        if let owner = query.owner, item.userID != owner { return false }
        if let status = query.status, item.status != status { return false }
        let words = query.text.lowercased().split(separator: " ")
        let text = (item.title + " " + (item.notes ?? "")).lowercased()
        let tokens = text.split { !$0.isLetter && !$0.isNumber }
        return words.allSatisfy { word in tokens.contains { $0.hasPrefix(word) } }
    }

    @Test(arguments: Backend.available)
    func everyOrderPagesForwardAndBackward(_ backend: Backend) async throws {
        try await backend.withStore { (store: Store) async throws in
            let all = try await Self.fill(store)
            #expect(all.count == 61)
            let owner = all[0].userID
            let filters = [
                ItemQuery(), ItemQuery(owner: owner), ItemQuery(status: .open), ItemQuery(text: "red"),
                ItemQuery(owner: owner, status: .done, text: "app"),
            ]
            for filter in filters {
                for field in ItemQuery.SortField.allCases {
                    for direction in [ItemQuery.SortDirection.ascending, .descending] {
                        var query = filter
                        query.sortField = field
                        query.sortDirection = direction
                        let want = Self.expected(all.filter { Self.matches($0, query) }, query).map(\.id)
                        // Forward, 7 at a time.
                        var got: [Item.ID] = []
                        var cursor: ItemCursor?
                        while true {
                            let page = try await store.items.items(matching: query, after: cursor, limit: 7)
                            got += page.map(\.id)
                            guard let last = page.last, page.count == 7 else { break }
                            cursor = ItemCursor(last)
                        }
                        #expect(got == want, "forward \(field) \(direction) \(filter)")
                        // Backward from the end, 5 at a time.
                        var back: [Item.ID] = []
                        var before: ItemCursor?
                        while true {
                            let page = try await store.items.items(matching: query, before: before, limit: 5)
                            back = page.map(\.id) + back
                            guard let first = page.first, page.count == 5 else { break }
                            before = ItemCursor(first)
                        }
                        #expect(back == want, "backward \(field) \(direction) \(filter)")
                        #expect(try await store.items.count(matching: query) == want.count)
                    }
                }
            }
        }
    }

    /// Status and priority filters without words read one index range per (status,
    /// priority) pair, merged (SQLite migration 0012, PostgreSQL 0009): every order, both
    /// directions, cursors inside and between the pairs' ranges, the same rows as a filter in
    /// Swift, and the same counts.
    @Test(arguments: Backend.available)
    func statusAndPriorityFiltersPageInEveryOrder(_ backend: Backend) async throws {
        try await backend.withStore { (store: Store) async throws in
            let all = try await Self.fill(store)
            let filters: [(query: ItemQuery, keeps: (Item) -> Bool)] = [
                (ItemQuery(text: "status:done"), { $0.status == .done }),
                (ItemQuery(text: "prio:>=2"), { $0.priority >= 2 }),
                (ItemQuery(text: "is:open prio:1"), { $0.status == .open && $0.priority == 1 }),
                (ItemQuery(status: .done, text: "prio:<2"), { $0.status == .done && $0.priority < 2 }),
                (ItemQuery(text: "status:done status:open"), { _ in false }),
                (ItemQuery(text: "prio:3 -apple"), { $0.priority == 3 && !$0.title.lowercased().contains("apple") }),
                (
                    ItemQuery(text: "prio:0 created:>=2023-11-14T22:15:00Z"),
                    {
                        $0.priority == 0 && $0.createdAt >= Date(timeIntervalSince1970: 1_700_000_100)
                    }
                ),
            ]
            for (filter, keeps) in filters {
                for field in ItemQuery.SortField.allCases {
                    for direction in [ItemQuery.SortDirection.ascending, .descending] {
                        var query = filter
                        query.sortField = field
                        query.sortDirection = direction
                        let want = Self.expected(all.filter(keeps), query).map(\.id)
                        var got: [Item.ID] = []
                        var cursor: ItemCursor?
                        while true {
                            let page = try await store.items.items(matching: query, after: cursor, limit: 3)
                            got += page.map(\.id)
                            guard let last = page.last, page.count == 3 else { break }
                            cursor = ItemCursor(last)
                        }
                        #expect(got == want, "forward \(field) \(direction) \(filter.text)")
                        var back: [Item.ID] = []
                        var before: ItemCursor?
                        while true {
                            let page = try await store.items.items(matching: query, before: before, limit: 4)
                            back = page.map(\.id) + back
                            guard let first = page.first, page.count == 4 else { break }
                            before = ItemCursor(first)
                        }
                        #expect(back == want, "backward \(field) \(direction) \(filter.text)")
                        #expect(try await store.items.count(matching: query) == want.count, "\(filter.text)")
                    }
                }
            }
        }
    }

    @Test(arguments: Backend.available)
    func everySearchWordIsAPrefixAndMustMatch(_ backend: Backend) async throws {
        try await backend.withStore { (store: Store) async throws in
            let all = try await Self.fill(store)
            for text in ["moth", "MOTH", "mot", "red app", "redw", "pear green", "apple zebra", "nothing"] {
                let got = try await store.items.items(matching: ItemQuery(text: text)).map(\.id)
                let want = Self.expected(all.filter { Self.matches($0, ItemQuery(text: text)) }, ItemQuery())
                #expect(Set(got) == Set(want.map(\.id)), "\(text)")
                #expect(try await store.items.count(matching: ItemQuery(text: text)) == want.count)
            }
        }
    }

    @Test(arguments: Backend.available)
    func searchTextIsNeverSyntax(_ backend: Backend) async throws {
        try await backend.withStore { (store: Store) async throws in
            let all = try await Self.fill(store)
            let hostile = [
                "\"", "'", "\\", "red\"", "a AND b", "NOT red", "red OR blue", "(red", "red*", ":*", "!red", "&|",
                "<->",
                "red:A", "\u{0}", "💥", "e\u{301}", "\u{202E}red", "title:red", "-red", "^red", "NEAR(red blue)", "   ",
                String(repeating: "red ", count: 300),
            ]
            for text in hostile {
                let query = ItemQuery(text: text)
                let got = try await store.items.items(matching: query, limit: 100)
                let count = try await store.items.count(matching: query)
                #expect(got.count == min(count, 100), "\(text.debugDescription)")
                #expect(count <= all.count)
            }
            // Text without a letter or digit does not filter.
            #expect(try await store.items.count(matching: ItemQuery(text: "(\"*")) == all.count)
        }
    }
}
