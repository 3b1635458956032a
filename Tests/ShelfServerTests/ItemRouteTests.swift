#if Server
    import Foundation
    import NIOHTTP1
    import Testing

    /// The item routes through the real `shelf serve`: statuses, headers, ETag rules, pages.
    @Suite(.serialized) struct ItemRouteTests {
        @Test func anItemIsAddedReadChangedAndRemovedWithItsETagsChecked() async throws {
            try await ServedShelf.with { served in
                let added = try await served.send(
                    .POST, "/api/items", json: #"{"title": "Read Dune", "user": "ann@example.com", "priority": 2}"#)
                #expect(added.status == 201)
                let id = try #require(added.json["id"] as? Int)
                #expect(added["Location"] == "/api/items/\(id)")
                #expect(added["ETag"] == "\"1\"")
                #expect(added["Content-Type"] == "application/json")
                #expect(added.json["user"] as? String == "ann@example.com")
                #expect(added.json["status"] as? String == "open")
                #expect(added.json["notes"] is NSNull)

                let read = try await served.get("/api/items/\(id)")
                #expect(read.status == 200)
                #expect(read["ETag"] == "\"1\"")
                #expect(read.json["title"] as? String == "Read Dune")

                // Without If-Match: 428, and nothing changes.
                let unconditional = try await served.send(.PATCH, "/api/items/\(id)", json: #"{"status": "done"}"#)
                #expect(unconditional.status == 428)
                #expect(unconditional["Content-Type"] == "application/problem+json")
                #expect(unconditional.detail.contains("If-Match"))

                let changed = try await served.send(
                    .PATCH, "/api/items/\(id)", json: #"{"status": "done"}"#, headers: [("If-Match", "\"1\"")])
                #expect(changed.status == 200)
                #expect(changed["ETag"] == "\"2\"")
                #expect(changed.json["status"] as? String == "done")

                // The version read first is stale now: 412 for a change and for a removal.
                let stale = try await served.send(
                    .PATCH, "/api/items/\(id)", json: #"{"title": "Reread Dune"}"#, headers: [("If-Match", "\"1\"")])
                #expect(stale.status == 412)
                #expect(stale.detail.contains("changed since"))
                #expect(try await served.send(.DELETE, "/api/items/\(id)").status == 428)
                #expect(
                    try await served.send(.DELETE, "/api/items/\(id)", headers: [("If-Match", "\"1\"")]).status == 412)
                #expect(try await served.get("/api/items/\(id)").json["title"] as? String == "Read Dune")

                let removed = try await served.send(.DELETE, "/api/items/\(id)", headers: [("If-Match", "\"2\"")])
                #expect(removed.status == 204)
                let gone = try await served.get("/api/items/\(id)")
                #expect(gone.status == 404)
                #expect(gone.detail == "no item has the ID \(id); list them with GET /api/items")
            }
        }

        @Test func aChangeMadeElsewhereMakesIfMatchFail() async throws {
            try await ServedShelf.with { served in
                let added = try await served.send(.POST, "/api/items", json: #"{"title": "Plant", "user_id": 1}"#)
                let id = try #require(added.json["id"] as? Int)
                let etag = try #require(added["ETag"])
                // The sqlite3 shell edits the row: the schema moves its version.
                _ = try await served.cli(sqlite: "UPDATE items SET title = 'Plant trees' WHERE id = \(id)")
                let conflict = try await served.send(
                    .PATCH, "/api/items/\(id)", json: #"{"priority": 3}"#, headers: [("If-Match", etag)])
                #expect(conflict.status == 412)
                #expect(try await served.get("/api/items/\(id)").json["priority"] as? Int == 0)
            }
        }

        @Test func pagesFollowTheirCursorsWithoutSkippingOrRepeating() async throws {
            try await ServedShelf.with { served in
                for number in 1...7 {
                    let reply = try await served.send(
                        .POST, "/api/items", json: #"{"title": "Item \#(number)", "user": "ann@example.com"}"#)
                    #expect(reply.status == 201)
                }
                var seen: [String] = []
                var path = "/api/items?sort=title&order=asc&limit=3"
                var pages = 0
                while true {
                    let page = try await served.get(path)
                    #expect(page.status == 200)
                    #expect(page.json["count"] as? Int == 7)
                    let items = try #require(page.json["items"] as? [[String: Any]])
                    seen += items.compactMap { $0["title"] as? String }
                    pages += 1
                    guard let next = page.json["next"] as? String else { break }
                    path = "/api/items?sort=title&order=asc&limit=3&after=\(next)"
                }
                #expect(pages == 3)
                #expect(seen == (1...7).map { "Item \($0)" })
                let found = try await served.get(
                    "/api/items?q=\("Item 4".addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")")
                #expect(found.json["count"] as? Int == 1)
            }
        }

        @Test func badQueriesAndParametersAre400sThatSayWhy() async throws {
            try await ServedShelf.with { served in
                let problem = try await served.get("/api/items?q=prio%3A9")
                #expect(problem.status == 400)
                #expect(problem.detail.hasPrefix("q: column 1: "))
                #expect(try await served.get("/api/items?sort=size").status == 400)
                #expect(try await served.get("/api/items?order=up").status == 400)
                #expect(try await served.get("/api/items?after=notacursor").status == 400)
                #expect(try await served.get("/api/items?colour=red").status == 400)
                #expect(try await served.get("/api/items/abc").status == 400)
                let route = try await served.get("/api/nothing")
                #expect(route.status == 404)
                #expect(route["Content-Type"] == "application/problem+json")
            }
        }
    }

    extension ServedShelf {
        /// Runs the sqlite3 shell on the served database.
        func cli(sqlite sql: String) async throws -> Int32 {
            let path = databasePath
            return try await withCheckedThrowingContinuation { continuation in
                Thread.detachNewThread {
                    continuation.resume(
                        with: Result {
                            try ChildProcessRunner.sqlite3(path, sql)
                        })
                }
            }
        }

        var shelf: ServedShelfCLI { ServedShelfCLI(databasePath: databasePath, folder: folder) }
    }
#endif
