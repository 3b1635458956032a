import Foundation
import ShelfStore
import Testing

/// Items whose owner is not a user exist only when the foreign keys were set aside (another
/// program's `PRAGMA foreign_keys=OFF`, PostgreSQL's `session_replication_role = replica` or a
/// dropped constraint). The count counts them, so the owner order shows them too: after every
/// owner in either direction, by ID in the list's direction (hostile round 12, finding 2: the
/// owner order left them out on both backends).
@Suite("Conformance: the owner order and items whose owner is gone")
struct OwnerlessOrderConformanceTests {
    /// Deletes `users` as another program would with the foreign keys set aside: their items
    /// stay, naming users who are gone.
    static func deleteLeavingItems(_ users: [User.ID], _ store: Store, _ backend: Backend) async throws {
        let list = users.map { String($0.rawValue) }.joined(separator: ", ")
        switch backend {
        case .sqlite:
            try await LiveWindowConformanceTests.runExternally(
                "PRAGMA foreign_keys=OFF; DELETE FROM users WHERE id IN (\(list));", store, backend)
        case .postgres:
            try await LiveWindowConformanceTests.runExternally(
                "SET session_replication_role = replica; DELETE FROM users WHERE id IN (\(list));", store, backend)
        }
    }

    /// The owners' items by (name, owner, ID), then the ownerless ones by ID; reversed whole
    /// for the owners and by ID for the rest when descending.
    static func expected(
        _ items: [Item], names: [User.ID: String], direction: ItemQuery.SortDirection
    ) -> [Item.ID] {
        let owned = items.filter { names[$0.userID] != nil }.sorted { a, b in
            let (x, y) = (names[a.userID] ?? "", names[b.userID] ?? "")
            return x != y ? x < y : (a.userID, a.id) < (b.userID, b.id)
        }
        let gone = items.filter { names[$0.userID] == nil }.sorted { $0.id < $1.id }
        return direction == .ascending
            ? (owned + gone).map(\.id) : (owned.reversed() + gone.reversed()).map(\.id)
    }

    @Test(arguments: Backend.available)
    func itemsWhoseOwnerIsGoneComeAfterEveryOwnerOnEveryPage(_ backend: Backend) async throws {
        try await backend.withStore { (store: Store) async throws in
            var users: [User.ID] = []
            for name in ["Ann", "Bob", "Cid", "Dee", "Eve"] {
                users.append(
                    try await store.users.insert(NewUser(name: name, email: "\(name.lowercased())@example.com")))
            }
            let titles = ["red apple", "green pear", "blue moth", "redwood box"]
            let base = Date(timeIntervalSince1970: 1_700_000_000)
            _ = try await store.items.insert(
                contentsOf: (0..<53).map { index in
                    NewItem(
                        userID: users[index % 5], title: titles[index % titles.count],
                        status: index % 3 == 0 ? .done : .open, priority: index % 4,
                        createdAt: base.addingTimeInterval(Double(index)))
                })
            let all = try await store.items.items(matching: ItemQuery(sortField: .created, sortDirection: .ascending))
            #expect(all.count == 53)
            let (ann, bob, dee) = (users[0], users[1], users[3])
            try await Self.deleteLeavingItems([bob, dee], store, backend)
            let names = [ann: "ann", users[2]: "cid", users[4]: "eve"]
            #expect(try await store.users.users().count == 3)

            let filters: [(ItemQuery, (Item) -> Bool)] = [
                (ItemQuery(), { _ in true }),
                (ItemQuery(status: .open), { $0.status == .open }),
                (ItemQuery(text: "status:done"), { $0.status == .done }),
                (ItemQuery(text: "prio:2"), { $0.priority == 2 }),
                (ItemQuery(text: "status:open prio:1"), { $0.status == .open && $0.priority == 1 }),
                (ItemQuery(text: "red"), { $0.title.hasPrefix("red") }),
                (ItemQuery(owner: bob), { $0.userID == bob }),
                (ItemQuery(owner: ann), { $0.userID == ann }),
                (ItemQuery(text: "@ann"), { $0.userID == ann }),
            ]
            for (filter, matches) in filters {
                for direction in [ItemQuery.SortDirection.ascending, .descending] {
                    var query = filter
                    query.sortField = .owner
                    query.sortDirection = direction
                    let label = "\(filter.owner.map { "owner \($0.rawValue) " } ?? "")'\(filter.text)' \(direction)"
                    let want = Self.expected(all.filter(matches), names: names, direction: direction)
                    #expect(try await store.items.count(matching: query) == want.count, "count \(label)")
                    let whole = try await store.items.items(matching: query, after: nil, limit: nil)
                    #expect(whole.map(\.id) == want, "whole list \(label)")
                    // Forward, 4 at a time: with the cursor alone, and with the owner's name as
                    // `shelf serve` makes it ("" for an owner who is gone).
                    for named in [false, true] {
                        var got: [Item.ID] = []
                        var cursor: ItemCursor?
                        while true {
                            let page = try await store.items.items(matching: query, after: cursor, limit: 4)
                            got += page.map(\.id)
                            guard let last = page.last, page.count == 4, got.count <= want.count else { break }
                            cursor = named ? ItemCursor(last, ownerName: names[last.userID] ?? "") : ItemCursor(last)
                        }
                        #expect(got == want, "forward named \(named) \(label)")
                    }
                    // Backward from the end, 3 at a time.
                    var back: [Item.ID] = []
                    var before: ItemCursor?
                    while true {
                        let page = try await store.items.items(matching: query, before: before, limit: 3)
                        back = page.map(\.id) + back
                        guard let first = page.first, page.count == 3, back.count <= want.count else { break }
                        before = ItemCursor(first)
                    }
                    #expect(back == want, "backward \(label)")
                    // The position of every item: what comes before it.
                    let byID = Dictionary(uniqueKeysWithValues: all.map { ($0.id, $0) })
                    for (index, id) in want.enumerated() where index % 5 == 0 {
                        let item = try #require(byID[id])
                        let before = try await store.items.count(matching: query, before: ItemCursor(item))
                        #expect(before == index, "position of \(id.rawValue) \(label)")
                    }
                }
            }
        }
    }
}
