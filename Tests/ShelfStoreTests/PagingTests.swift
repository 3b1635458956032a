import Foundation
import ShelfSQLite
import Testing

@testable import ShelfSQLiteBackend
@testable import ShelfStore

@Suite("Keyset paging")
struct PagingTests {
    static let sorts: [(ItemQuery.SortField, ItemQuery.SortDirection)] = ItemQuery.SortField.allCases.flatMap {
        [($0, .ascending), ($0, .descending)]
    }

    /// 10,000 items with many ties on every sort field, over two owners.
    static func makeStore() async throws -> (SQLiteBackend, User.ID) {
        let sqlite = try SQLiteBackend.temporary()
        let store = Store(sqlite: sqlite)
        let ann = try await store.users.insert(NewUser(name: "Ann", email: "ann@example.com"))
        let bob = try await store.users.insert(NewUser(name: "Bob", email: "bob@example.com"))
        var generator = SeededRandomNumberGenerator(seed: 42)
        let words = ["moth", "lamp", "Book", "apple", "zebra", "Ärger", "dune", "ant"]
        let base = Date(timeIntervalSince1970: 1_700_000_000)
        let items = (0..<10_000).map { index in
            NewItem(
                userID: index % 3 == 0 ? bob : ann,
                title:
                    "\(words[Int.random(in: 0..<words.count, using: &generator)]) \(Int.random(in: 0..<50, using: &generator))",
                status: Bool.random(using: &generator) ? .open : .done,
                priority: Int.random(in: 0...3, using: &generator),
                createdAt: base.addingTimeInterval(Double(Int.random(in: 0..<500, using: &generator))))
        }
        _ = try await store.items.insert(contentsOf: items)
        return (sqlite, ann)
    }

    /// The same list read with LIMIT/OFFSET, the reference the keyset pages must equal.
    func offsetPages(_ sqlite: SQLiteBackend, _ query: ItemQuery, pageSize: Int) throws -> [Item] {
        let order = query.sortDirection == .ascending ? "ASC" : "DESC"
        // Written out here, independently of the store's SQL builder.
        var clauses: [String] = []
        var arguments: [any SQLBindable] = []
        if let owner = query.owner {
            clauses.append("user_id = ?")
            arguments.append(owner.rawValue)
        }
        if let status = query.status {
            clauses.append("status = ?")
            arguments.append(status.rawValue)
        }
        if !query.text.isEmpty {
            clauses.append("id IN (SELECT rowid FROM items_fts WHERE items_fts MATCH ?)")
            arguments.append("\"\(query.text)\"*")
        }
        let filter = (text: clauses.joined(separator: " AND "), arguments: arguments)
        var result: [Item] = []
        var offset = 0
        while true {
            let sql =
                "SELECT \(ItemQuery.itemColumns) FROM items" + (filter.text.isEmpty ? "" : " WHERE \(filter.text)")
                + " ORDER BY \(query.sortColumn) \(order), id \(order) LIMIT \(pageSize) OFFSET \(offset)"
            let page = try sqlite.database.read { try $0.fetch(sql, arguments: filter.arguments, row: Item.init(row:)) }
            result += page
            offset += pageSize
            if page.count < pageSize { return result }
        }
    }

    @Test func forwardAndBackwardPagesEqualOffsetPagesForEverySort() async throws {
        let (sqlite, ann) = try await Self.makeStore()
        let store = Store(sqlite: sqlite)
        for (field, direction) in Self.sorts {
            for query in [
                ItemQuery(sortField: field, sortDirection: direction),
                ItemQuery(owner: ann, status: .open, sortField: field, sortDirection: direction),
                ItemQuery(text: "mo", sortField: field, sortDirection: direction),
            ] {
                let expected = try offsetPages(sqlite, query, pageSize: 333)
                #expect(expected.count == (try await store.items.count(matching: query)))

                var forward: [Item] = []
                var cursor: ItemCursor?
                while true {
                    let page = try await store.items.items(matching: query, after: cursor, limit: 333)
                    forward += page
                    guard let last = page.last, page.count == 333 else { break }
                    cursor = ItemCursor(last)
                }
                #expect(forward.map(\.id) == expected.map(\.id), "forward \(field) \(direction)")

                var backward: [Item] = []
                cursor = nil
                while true {
                    let page = try await store.items.items(matching: query, before: cursor, limit: 333)
                    backward = page + backward
                    guard let first = page.first, page.count == 333 else { break }
                    cursor = ItemCursor(first)
                }
                #expect(backward.map(\.id) == expected.map(\.id), "backward \(field) \(direction)")
            }
        }
    }

    @Test func pagesAroundAMiddleCursorMeet() async throws {
        let (sqlite, _) = try await Self.makeStore()
        let store = Store(sqlite: sqlite)
        let query = ItemQuery(sortField: .priority, sortDirection: .descending)
        let all = try await store.items.items(matching: query)
        let middle = ItemCursor(all[5000])
        let before = try await store.items.items(matching: query, before: middle, limit: 50)
        let after = try await store.items.items(matching: query, after: middle, limit: 50)
        #expect(before.map(\.id) == all[4950..<5000].map(\.id))
        #expect(after.map(\.id) == all[5001..<5051].map(\.id))
    }

    @Test func listOrderingsUseAnIndex() async throws {
        let (sqlite, ann) = try await Self.makeStore()
        let store = Store(sqlite: sqlite)
        let cursor = ItemCursor(try #require(try await store.items.items(matching: ItemQuery(), limit: 1).first))
        for (field, direction) in Self.sorts {
            for query in [
                ItemQuery(sortField: field, sortDirection: direction),
                ItemQuery(owner: ann, sortField: field, sortDirection: direction),
            ] {
                // The owner order without its part of the items whose owner is gone, which sorts
                // only those (SearchPlanTests.theOwnerOrderIsANestedWalkOfTwoIndexes).
                let plan = try await sqlite.database.read {
                    let sql = query.pageSQL(cursor: cursor, backward: false, limit: 50, ownerless: false)
                    return try $0.fetch("EXPLAIN QUERY PLAN " + sql.text, arguments: sql.arguments) {
                        try $0.get(3, as: String.self)
                    }
                }
                #expect(!plan.joined().contains("TEMP B-TREE"), "\(field) \(direction) sorts without an index: \(plan)")
                #expect(plan.joined().contains("INDEX"), "\(field) \(direction): \(plan)")
            }
        }
    }

    /// A page's rows come from one statement, which reads one snapshot on its own: the read
    /// runs that statement alone, with no BEGIN and ROLLBACK around it (they cost a page read
    /// a few per cent: Benchmarks, `store.page`), in both directions and with words.
    @Test func aPageReadRunsOnlyItsStatement() async throws {
        let (sqlite, ann) = try await Self.makeStore()
        let store = Store(sqlite: sqlite)
        let cursor = ItemCursor(try #require(try await store.items.items(matching: ItemQuery(), limit: 1).first))
        for query in [ItemQuery(), ItemQuery(owner: ann, status: .open, sortField: .title)] {
            // The first reads prepare and cache the statements (preparing counts too).
            _ = try await store.items.items(matching: query, after: cursor, limit: 50)
            _ = try await store.items.items(matching: query, before: cursor, limit: 50)
            let before = sqlite.statementCount
            let after = try await store.items.items(matching: query, after: cursor, limit: 50)
            #expect(sqlite.statementCount - before == 1, "\(query): forward")
            let backward = try await store.items.items(matching: query, before: cursor, limit: 50)
            #expect(sqlite.statementCount - before == 2, "\(query): backward")
            #expect(!after.isEmpty || !backward.isEmpty)
        }
        // With words, the statements that pick the plan run as well; still no BEGIN or ROLLBACK.
        let words = ItemQuery(text: "moth")
        _ = try await store.items.items(matching: words, after: nil, limit: 50)
        let before = sqlite.statementCount
        let page = try await store.items.items(matching: words, after: nil, limit: 50)
        #expect(sqlite.statementCount - before == 3, "the row count, the probe and the page")
        #expect(page.count == 50)
    }
}
