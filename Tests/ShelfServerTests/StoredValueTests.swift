#if Server
    import Foundation
    import NIOHTTP1
    import Testing

    /// Values another program stored with the wrong SQLite type: the list and the live windows
    /// refuse them as `GET /api/items/{id}`, `shelf items list` and `shelf export` do (they were
    /// served as SQLite reads them: text in a time as 1970, 2.5 as 2, bytes as U+FFFD).
    @Suite(.serialized) struct StoredValueTests {
        @Test(arguments: [
            ("UPDATE items SET created_at = 'yesterday' WHERE id = 2", "created_at"),
            ("UPDATE items SET priority = 2.5 WHERE id = 2", "priority"),
            ("UPDATE items SET title = CAST(X'C328' AS TEXT) WHERE id = 2", "title"),
        ])
        func theListAndLiveWindowsRefuseAValueOfTheWrongTypeAsTheItemDoes(_ update: String, column: String)
            async throws
        {
            try await ServedShelf.with { served in
                for title in ["apple", "banana", "cherry"] {
                    let added = try await served.send(
                        .POST, "/api/items", json: #"{"title": "\#(title)", "user": "ann@example.com"}"#)
                    #expect(added.status == 201)
                }
                let live = try await EventStream(served, "/api/items/live")
                #expect(try await live.next()?.event == "window")
                #expect(try await served.cli(sqlite: update) == 0)

                let item = try await served.get("/api/items/2")
                #expect(item.status == 500, "\(item.body)")
                let list = try await served.get("/api/items")
                #expect(list.status == 500, "\(list.body)")
                #expect(list["Content-Type"] == "application/problem+json")
                #expect(list.detail == item.detail, "the same words as the item's read")
                #expect(list.detail.contains("items row 2 in "), "\(list.detail)")
                #expect(list.detail.contains(" in \(column),"), "\(list.detail)")
                #expect(list.detail.contains("UPDATE items SET \(column) = "), "\(list.detail)")
                // A page without the row is served.
                let other = try await served.get("/api/items?q=apple")
                #expect(other.status == 200, "\(other.body)")
                #expect((other.json["items"] as? [Any])?.count == 1)

                // The open stream and a new one get an error naming the row, not the window.
                let refused = try await live.next()
                #expect(refused?.event == "error", "\(refused?.data ?? "the stream ended")")
                #expect(refused?.json["detail"] as? String == item.detail)
                let fresh = try await EventStream(served, "/api/items/live")
                let first = try await fresh.next()
                #expect(first?.event == "error", "\(first?.data ?? "the stream ended")")
                #expect(first?.json["detail"] as? String == item.detail)

                // Corrected with sqlite3, the row is served again, and both streams get the window.
                #expect(
                    try await served.cli(
                        sqlite:
                            "UPDATE items SET created_at = 1700000000000, priority = 1, title = 'banana' WHERE id = 2")
                        == 0)
                #expect(try await served.get("/api/items").status == 200)
                for stream in [live, fresh] {
                    let window = try await stream.next()
                    #expect(window?.event == "window", "\(window?.data ?? "the stream ended")")
                    let titles = (window?.json["items"] as? [[String: Any]])?.compactMap { $0["title"] as? String }
                    #expect(Set(titles ?? []) == ["apple", "banana", "cherry"])
                }
            }
        }
    }
#endif
