import Foundation
import ShelfReactive
import ShelfStore
import ShelfTestSupport
import Testing

/// Live item windows on every backend: kept from the change log, shared by key, re-read only
/// when a change can affect them, and always what a fresh read returns, whoever writes (the
/// store, or another program: the sqlite3 shell, psql).
@Suite("Conformance: live windows")
struct LiveWindowConformanceTests {
    /// Every shape a live window takes: each filter, each order, anchors, limits.
    static func shapes(ann: User.ID, bob: User.ID, anchor: Item) -> [(ItemQuery, ItemCursor?, Int)] {
        let queries: [ItemQuery] = [
            ItemQuery(),
            ItemQuery(sortField: .created, sortDirection: .ascending),
            ItemQuery(sortField: .title, sortDirection: .ascending),
            ItemQuery(sortField: .title, sortDirection: .descending),
            ItemQuery(sortField: .updated, sortDirection: .descending),
            ItemQuery(sortField: .priority, sortDirection: .descending),
            ItemQuery(sortField: .priority, sortDirection: .ascending),
            ItemQuery(sortField: .owner, sortDirection: .ascending),
            ItemQuery(owner: ann),
            ItemQuery(owner: bob, sortField: .title, sortDirection: .ascending),
            ItemQuery(status: .open),
            ItemQuery(status: .done, sortField: .priority, sortDirection: .descending),
            ItemQuery(text: "prio:>=2"),
            ItemQuery(text: "prio:1 status:open", sortField: .updated, sortDirection: .ascending),
            ItemQuery(text: "moth"),
            ItemQuery(text: "moth", sortField: .title, sortDirection: .ascending),
            ItemQuery(text: "-moth status:done"),
            ItemQuery(text: "\"blue moth\""),
            ItemQuery(text: "@bo"),
            ItemQuery(text: "owner:ann prio:>=1", sortField: .priority, sortDirection: .descending),
            ItemQuery(text: "created:>2026-01-01"),
            ItemQuery(text: "created:<7d"),
        ]
        var shapes: [(ItemQuery, ItemCursor?, Int)] = []
        for query in queries {
            for limit in [0, 3, 10] { shapes.append((query, nil, limit)) }
            shapes.append((query, ItemCursor(anchor), 4))
        }
        return shapes
    }

    typealias Live = (query: ItemQuery, anchor: ItemCursor?, limit: Int, property: Property<LiveResult<ItemWindow>>)

    /// Waits (generously: no time bound is asserted) until every live window equals a fresh
    /// read; returns the windows that never did.
    static func mismatches(_ live: [Live], _ store: Store) async throws -> [String] {
        let deadline = ContinuousClock.now + .seconds(120)
        while true {
            var wrong: [String] = []
            var fresh: [String: ItemWindow] = [:]
            for window in live {
                let key = "\(window.query) \(String(describing: window.anchor)) \(window.limit)"
                let expected: ItemWindow
                if let known = fresh[key] {
                    expected = known
                } else {
                    expected = ItemWindow(
                        items: try await store.items.items(
                            matching: window.query, after: window.anchor, limit: window.limit),
                        totalCount: try await store.items.count(matching: window.query))
                    fresh[key] = expected
                }
                let shown = window.property.value.success
                if shown != expected {
                    let text = window.query.text.isEmpty ? "\(window.query)" : window.query.text
                    wrong.append(
                        "\(text) limit \(window.limit) anchor \(window.anchor != nil): shows "
                            + "\(shown.map { "\($0.items.map(\.id.rawValue)) of \($0.totalCount)" } ?? "a failure"), "
                            + "fresh \(expected.items.map(\.id.rawValue)) of \(expected.totalCount)")
                }
            }
            if wrong.isEmpty || ContinuousClock.now > deadline { return wrong }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Runs `sql` (one transaction) as another program does: the sqlite3 shell, or psql.
    static func runExternally(_ sql: String, _ store: Store, _ backend: Backend) async throws {
        switch backend {
        case .sqlite:
            let path = try #require(store.path)
            let status = try await ChildProcess.sqlite3(path, sql)
            #expect(status == 0, "sqlite3 failed: \(sql)")
        case .postgres:
            // The location shows a password as ***: psql takes it from PGPASSWORD instead.
            let url = try #require(store.shareableLocation).replacingOccurrences(of: ":***@", with: "@")
            _ = try await SnapshotPagesConformanceTests.output(
                "/usr/bin/psql", [url, "-X", "-q", "-v", "ON_ERROR_STOP=1", "-c", sql])
        }
    }

    @Test(arguments: Backend.available, [1, 2] as [UInt64])
    func everyLiveWindowEqualsAFreshReadAfterEveryCommit(_ backend: Backend, seed: UInt64) async throws {
        try await backend.withStore { (store: Store) async throws in
            let ann = try await store.users.insert(NewUser(name: "Ann", email: "ann@example.com"))
            let bob = try await store.users.insert(NewUser(name: "Bob", email: "bob@example.com"))
            var random = SeededRandomNumberGenerator(seed: seed)
            let now = Int64(Date().timeIntervalSince1970 * 1000)
            let day: Int64 = 86_400_000
            let words = ["blue moth", "moth", "red fox", "blue", "mothra", "Apple", "apple", "zebra", "Émile"]
            var nextTime = now - 40 * day
            func time() -> Int64 {
                // Either well inside the last week or well before it: "created:<7d" stays put.
                nextTime += Int64.random(in: 1...3, using: &random) * 1000
                return Bool.random(using: &random) ? now - Int64.random(in: 1...(2 * day), using: &random) : nextTime
            }
            func quote(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "''") + "'" }
            func owner() -> User.ID { Bool.random(using: &random) ? ann : bob }
            func word() -> String { words.randomElement(using: &random) ?? "moth" }
            func randomInsert() -> String {
                let created = time()
                return "INSERT INTO items (user_id, title, notes, status, priority, created_at, updated_at) VALUES ("
                    + "\(owner().rawValue), \(quote(word())), \(Bool.random(using: &random) ? "NULL" : quote(word())), "
                    + "'\(Bool.random(using: &random) ? "open" : "done")', \(Int.random(in: 0...3, using: &random)), "
                    + "\(created), \(created + 5));"
            }
            for _ in 0..<30 {
                let created = Date(timeIntervalSince1970: Double(time()) / 1000)
                try await store.items.insert(
                    NewItem(
                        userID: owner(), title: word(), notes: Bool.random(using: &random) ? nil : word(),
                        status: Bool.random(using: &random) ? .open : .done,
                        priority: Int.random(in: 0...3, using: &random), createdAt: created))
            }
            let anchor = try #require(try await store.items.items(matching: ItemQuery(), after: nil, limit: 15).last)
            var live: [Live] = []
            for (query, cursor, limit) in Self.shapes(ann: ann, bob: bob, anchor: anchor) {
                live.append(
                    (query, cursor, limit, try await store.liveItems(matching: query, after: cursor, limit: limit)))
            }
            let runsAfterOpening = store.liveQueryRuns

            /// A statement of another program, on a random item of `ids`.
            func randomStatement(_ ids: [Item.ID]) -> String {
                let id = ids.randomElement(using: &random)?.rawValue ?? 1
                switch Int.random(in: 0..<9, using: &random) {
                case 0, 1: return randomInsert()
                case 2: return "UPDATE items SET priority = \(Int.random(in: 0...3, using: &random)) WHERE id = \(id);"
                case 3:
                    return
                        "UPDATE items SET status = CASE status WHEN 'open' THEN 'done' ELSE 'open' END WHERE id = \(id);"
                case 4: return "UPDATE items SET title = \(quote(word())) WHERE id = \(id);"
                case 5: return "UPDATE items SET notes = \(quote(word())) WHERE id = \(id);"
                case 6:
                    return "UPDATE items SET user_id = CASE user_id WHEN \(ann.rawValue) THEN \(bob.rawValue) "
                        + "ELSE \(ann.rawValue) END, updated_at = \(time()) WHERE id = \(id);"
                case 7: return "UPDATE items SET created_at = \(time()), updated_at = \(time()) WHERE id = \(id);"
                default: return "DELETE FROM items WHERE id = \(id);"
                }
            }
            let steps = 45
            for step in 0..<steps {
                let ids = try await store.items.items(matching: ItemQuery(), after: nil, limit: 1000).map(\.id)
                var done = ""
                switch step % 3 {
                case 0:
                    // Another program: a transaction of one to five statements, or a user renamed
                    // (owner prefixes and the owner order change).
                    let rows = Int.random(in: 0..<3, using: &random) == 0 ? Int.random(in: 2...5, using: &random) : 1
                    var sql = (0..<rows).map { _ in randomStatement(ids) }.joined(separator: " ")
                    if step % 9 == 3 {
                        sql =
                            "UPDATE users SET name = \(quote(Bool.random(using: &random) ? "Bobby" : "Al")) "
                            + "WHERE id = \(bob.rawValue);"
                    }
                    try await Self.runExternally("BEGIN; \(sql) COMMIT;", store, backend)
                    done = sql
                case 1:
                    let id = try await store.items.insert(
                        NewItem(
                            userID: owner(), title: word(), status: Bool.random(using: &random) ? .open : .done,
                            priority: Int.random(in: 0...3, using: &random)))
                    done = "insert \(id.rawValue)"
                default:
                    guard let id = ids.randomElement(using: &random), var item = try await store.items.item(id: id)
                    else { continue }
                    if Int.random(in: 0..<4, using: &random) == 0 {
                        try await store.items.delete(id: id)
                        done = "delete \(id.rawValue)"
                    } else {
                        item.priority = Int.random(in: 0...3, using: &random)
                        item.status = Bool.random(using: &random) ? .open : .done
                        if Bool.random(using: &random) { item.title = word() }
                        _ = try await store.items.update(item)
                        done = "update \(id.rawValue)"
                    }
                }
                let wrong = try await Self.mismatches(live, store)
                #expect(wrong.isEmpty, "after step \(step) (\(done)): \(wrong.joined(separator: "; "))")
                if !wrong.isEmpty { break }
            }
            // Most commits were judged from the changed rows, not by reading windows again.
            let reads = store.liveQueryRuns - runsAfterOpening
            #expect(reads < live.count * steps / 3, "\(reads) reads for \(live.count) windows and \(steps) commits")
        }
    }

    /// A commit that cannot affect a window reads nothing for it; identical windows share one
    /// read and one result; an insert at the head of a newest-first window, and its count, are
    /// taken from the change without reading the window again.
    @Test(arguments: Backend.available)
    func onlyWhatCanChangeIsReadAgain(_ backend: Backend) async throws {
        try await backend.withStore { (store: Store) async throws in
            let ann = try await store.users.insert(NewUser(name: "Ann", email: "ann@example.com"))
            let bob = try await store.users.insert(NewUser(name: "Bob", email: "bob@example.com"))
            let start = store.liveQueryRuns
            let anns = try await store.liveItems(matching: ItemQuery(owner: ann), limit: 10)
            let annsAgain = try await store.liveItems(matching: ItemQuery(owner: ann), limit: 10)
            let newest = try await store.liveItems(matching: ItemQuery(), limit: 10)
            #expect(store.liveQueryRuns - start == 2, "two distinct windows, two reads")
            let opened = store.liveQueryRuns

            let first = try await store.items.insert(NewItem(userID: bob, title: "Bob's"))
            let firstItem = try #require(try await store.items.item(id: first))
            #expect(await eventually { newest.value.success == ItemWindow(items: [firstItem], totalCount: 1) })
            let second = try await store.items.insert(NewItem(userID: bob, title: "Bob's too", status: .done))
            #expect(
                await eventually {
                    newest.value.success?.items.map(\.id) == [second, first] && newest.value.success?.totalCount == 2
                })
            #expect(store.liveQueryRuns == opened, "no read again: Ann's windows cannot change, the newest gain a head")
            #expect(anns.value.success == ItemWindow(items: [], totalCount: 0))

            let hers = try await store.items.insert(NewItem(userID: ann, title: "Ann's"))
            #expect(await eventually { anns.value.success?.items.map(\.id) == [hers] })
            #expect(annsAgain.value.success == anns.value.success, "identical windows show one result")
            #expect(store.liveQueryRuns == opened)
        }
    }
}
