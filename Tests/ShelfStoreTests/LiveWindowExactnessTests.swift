import Foundation
import ShelfReactive
import ShelfSQLite
import ShelfTestSupport
import Testing

@testable import ShelfSQLiteBackend
@testable import ShelfStore

/// Live windows kept from the change log (incremental updates, shared entries, re-reads only
/// when needed) against fresh reads, after every commit of a random mix of writes.
@Suite("Live windows against fresh reads")
struct LiveWindowExactnessTests {
    /// Every shape a live window takes: each filter, each order, anchors, limits.
    static func shapes(ann: User.ID, bob: User.ID, anchor: Item) -> [LiveWindowKey] {
        let day: TimeInterval = 86_400
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
            ItemQuery(text: "🎂"),
        ]
        _ = day
        var keys: [LiveWindowKey] = []
        for query in queries {
            for limit in [0, 3, 10] { keys.append(LiveWindowKey(query: query, anchor: nil, limit: limit)) }
            keys.append(LiveWindowKey(query: query, anchor: ItemCursor(anchor), limit: 4))
        }
        return keys
    }

    /// A fresh read of `key` now.
    static func freshWindow(_ key: LiveWindowKey, _ store: Store) async throws -> ItemWindow {
        ItemWindow(
            items: try await store.items.items(matching: key.query, after: key.anchor, limit: key.limit),
            totalCount: try await store.items.count(matching: key.query))
    }

    /// Waits (generously: no time bound is asserted) until every live window equals a fresh
    /// read; returns the keys that never did.
    static func mismatches(
        _ live: [(LiveWindowKey, Property<LiveResult<ItemWindow>>)], _ store: Store, _ sqlite: SQLiteBackend
    ) async throws -> [String] {
        let deadline = ContinuousClock.now + .seconds(120)
        while true {
            await sqlite.liveWindows.settle()
            var wrong: [String] = []
            for (key, property) in live {
                let fresh = try await freshWindow(key, store)
                let shown = property.value.success
                if shown != fresh {
                    wrong.append(
                        "\(key.query.text.isEmpty ? "\(key.query)" : key.query.text) limit \(key.limit) "
                            + "anchor \(key.anchor != nil): shows \(shown.map { "\($0.items.map(\.id.rawValue)) of \($0.totalCount)" } ?? "a failure"), "
                            + "fresh \(fresh.items.map(\.id.rawValue)) of \(fresh.totalCount)")
                }
            }
            if wrong.isEmpty || ContinuousClock.now > deadline { return wrong }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    @Test(arguments: [1, 2, 3] as [UInt64])
    func everyLiveWindowEqualsAFreshReadAfterEveryCommit(seed: UInt64) async throws {
        let fixture = try await Fixture()
        let store = fixture.store
        let sqlite = fixture.sqlite
        let path = try #require(store.path)
        let bob = try await store.users.insert(NewUser(name: "Bob", email: "bob@example.com"))
        var random = SeededRandomNumberGenerator(seed: seed)
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let day: Int64 = 86_400_000
        let words = ["blue moth", "moth", "red fox", "blue", "mothra", "cake 🎂", "Apple", "apple", "zebra", "Émile"]
        var nextTime = now - 40 * day
        func time() -> Int64 {
            // Either well inside the last week or well before it: "created:<7d" stays put.
            nextTime += Int64.random(in: 1...3, using: &random) * 1000
            return Bool.random(using: &random) ? now - Int64.random(in: 1...(2 * day), using: &random) : nextTime
        }
        func quote(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "''") + "'" }
        func randomInsert(id: Int64? = nil, replace: Bool = false) -> String {
            let owner = Bool.random(using: &random) ? fixture.ann.rawValue : bob.rawValue
            let title = words.randomElement(using: &random)!
            let notes = Bool.random(using: &random) ? "NULL" : quote(words.randomElement(using: &random)!)
            let status = Bool.random(using: &random) ? "open" : "done"
            let priority = Int.random(in: 0...3, using: &random)
            let created = time()
            return
                "INSERT \(replace ? "OR REPLACE " : "")INTO items (\(id == nil ? "" : "id, ")user_id, title, notes, status, "
                + "priority, created_at, updated_at) VALUES (\(id.map { "\($0), " } ?? "")\(owner), \(quote(title)), "
                + "\(notes), '\(status)', \(priority), \(created), \(created + 5));"
        }
        // A starting set, and the anchor every anchored shape starts after.
        for _ in 0..<30 {
            let sql = randomInsert()
            try await sqlite.database.write { try $0.execute(sql) }
        }
        let anchorItem = try #require(try await store.items.items(matching: ItemQuery(), after: nil, limit: 15).last)
        let keys = Self.shapes(ann: fixture.ann, bob: bob, anchor: anchorItem)
        var live: [(LiveWindowKey, Property<LiveResult<ItemWindow>>)] = []
        for key in keys {
            live.append((key, try await store.liveItems(matching: key.query, after: key.anchor, limit: key.limit)))
        }
        let shell = try SQLiteShell(path: path)
        defer { shell.finish() }

        func randomStatement(_ ids: [Int64]) -> String {
            let id = ids.randomElement(using: &random) ?? 1
            switch Int.random(in: 0..<10, using: &random) {
            case 0, 1: return randomInsert()
            case 2: return "UPDATE items SET priority = \(Int.random(in: 0...3, using: &random)) WHERE id = \(id);"
            case 3:
                return "UPDATE items SET status = CASE status WHEN 'open' THEN 'done' ELSE 'open' END WHERE id = \(id);"
            case 4: return "UPDATE items SET title = \(quote(words.randomElement(using: &random)!)) WHERE id = \(id);"
            case 5: return "UPDATE items SET notes = \(quote(words.randomElement(using: &random)!)) WHERE id = \(id);"
            case 6:
                return "UPDATE items SET user_id = CASE user_id WHEN \(fixture.ann.rawValue) THEN \(bob.rawValue) "
                    + "ELSE \(fixture.ann.rawValue) END, updated_at = \(time()) WHERE id = \(id);"
            case 7: return "UPDATE items SET created_at = \(time()), updated_at = \(time()) WHERE id = \(id);"
            case 8: return "DELETE FROM items WHERE id = \(id);"
            default: return randomInsert(id: id, replace: true)
            }
        }
        for step in 0..<60 {
            let ids = try await sqlite.database.read { connection in
                try connection.fetch("SELECT id FROM items", row: { try $0.int64(0) })
            }
            let rows = Int.random(in: 0..<4, using: &random) == 0 ? Int.random(in: 2...6, using: &random) : 1
            var sql = (0..<rows).map { _ in randomStatement(ids) }.joined(separator: " ")
            switch step % 10 {
            case 3:
                // A user renamed: owner prefixes and the owner order change.
                sql =
                    "UPDATE users SET name = \(quote(Bool.random(using: &random) ? "Bobby" : "Al")) WHERE id = \(bob.rawValue);"
            default: break
            }
            let statements = sql
            if step % 3 == 0 {
                try await shell.run("BEGIN; \(statements) COMMIT;")
            } else {
                try await sqlite.database.write { try $0.execute(statements) }
            }
            let wrong = try await Self.mismatches(live, store, sqlite)
            #expect(wrong.isEmpty, "after step \(step) (\(sql)): \(wrong.joined(separator: "; "))")
            if !wrong.isEmpty { break }
        }
        // Most commits were judged without reading windows again.
        let reads = sqlite.liveWindows.runs.value
        #expect(reads < keys.count * 60, "\(reads) reads for \(keys.count) windows and 60 commits")
    }
}
