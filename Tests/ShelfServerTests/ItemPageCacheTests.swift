#if Server
    import Foundation
    import ShelfTestSupport
    import Testing

    /// `GET /api/items` answers kept while the store does not change (`ItemPageCache`) are
    /// never stale: a write by another process, through the sqlite3 shell, is in the very next
    /// answer to the same request.
    @Suite(.serialized) struct ItemPageCacheTests {
        @Test func theNextGetSeesAWriteMadeThroughTheSQLiteShell() async throws {
            try await ServedShelf.with { served in
                let path = "/api/items?limit=50"
                func titles() async throws -> (count: Int?, titles: [String], emails: [String]) {
                    let reply = try await served.get(path)
                    #expect(reply.status == 200)
                    let items = reply.json["items"] as? [[String: Any]] ?? []
                    return (
                        reply.json["count"] as? Int, items.compactMap { $0["title"] as? String },
                        items.compactMap { $0["user"] as? String }
                    )
                }
                let empty = try await titles()
                #expect(empty.count == 0)
                // Asked twice: the second answer may come from what was kept.
                #expect(try await titles().count == 0)

                // An insert: the count and the page move.
                #expect(
                    try await served.cli(
                        sqlite: """
                            INSERT INTO items (user_id, title, status, priority, created_at, updated_at)
                            VALUES (1, 'Moth trap', 'open', 1, 1700000000000, 1700000000000)
                            """) == 0)
                let inserted = try await titles()
                #expect(inserted.count == 1)
                #expect(inserted.titles == ["Moth trap"])
                #expect(try await titles().titles == ["Moth trap"])

                // An update that moves no count: only the title differs.
                #expect(try await served.cli(sqlite: "UPDATE items SET title = 'Moth net'") == 0)
                #expect(try await titles().titles == ["Moth net"])

                // A change to another table the page shows: the owner's email.
                #expect(try await served.cli(sqlite: "UPDATE users SET email = 'bea@example.com'") == 0)
                #expect(try await titles().emails == ["bea@example.com"])

                // A delete.
                #expect(try await served.cli(sqlite: "DELETE FROM items") == 0)
                let deleted = try await titles()
                #expect(deleted.count == 0)
                #expect(deleted.titles.isEmpty)
            }
        }
    }
#endif
