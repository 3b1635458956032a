#if Server
    import Foundation
    import NIOHTTP1
    import ShelfTestSupport
    import Testing

    #if PostgreSQL
        import ShelfPostgres
        import ShelfPostgresTesting
    #endif

    /// Several `shelf serve` on one database, and the service on PostgreSQL.
    @Suite(.serialized) struct InstancesTests {
        @Test func aStreamOnOneServerSeesAWriteThroughAnother() async throws {
            try await ServedShelf.with { first in
                try await ServedShelf.with(location: first.location, seedUser: false) { second in
                    let stream = try await EventStream(first, "/api/items/live?q=kite")
                    #expect(try await stream.next()?.json["count"] as? Int == 0)
                    let added = try await second.send(
                        .POST, "/api/items", json: #"{"title": "Fly a kite", "user": "ann@example.com"}"#)
                    #expect(added.status == 201)
                    let window = try await stream.next { ($0.json["count"] as? Int) == 1 }
                    #expect((window?.json["items"] as? [[String: Any]])?.first?["title"] as? String == "Fly a kite")
                }
            }
        }

        #if PostgreSQL
            /// The server `SHELF_TEST_POSTGRES` names, if any.
            static var postgres: String? {
                let value = ProcessInfo.processInfo.environment["SHELF_TEST_POSTGRES"] ?? ""
                return value.isEmpty ? nil : value
            }

            @Test(
                .enabled(
                    if: postgres != nil, "PostgreSQL server tests skipped: set SHELF_TEST_POSTGRES to a server's URL"))
            func tokensRoutesAndStreamsOnPostgreSQL() async throws {
                let server = try #require(Self.postgres)
                try await PostgresScratch.withDatabase(serverURL: server) { url in
                    try await ServedShelf.with(location: url) { served in
                        let stream = try await EventStream(served, "/api/items/live?q=kite")
                        #expect(try await stream.next()?.json["count"] as? Int == 0)
                        let made = try await served.shelf.runAsync(["tokens", "create", "--user", "ann@example.com"])
                        #expect(made.status == 0, "\(made.error)")
                        let token = made.output.trimmingCharacters(in: .newlines)
                        #expect(try await served.get("/api/items").status == 401)
                        let bearer = [("Authorization", "Bearer \(token)")]
                        let added = try await served.send(
                            .POST, "/api/items", json: #"{"title": "Fly a kite", "user_id": 1}"#, headers: bearer)
                        #expect(added.status == 201)
                        let etag = try #require(added["ETag"])
                        let id = try #require(added.json["id"] as? Int)
                        let changed = try await served.send(
                            .PATCH, "/api/items/\(id)", json: #"{"priority": 3}"#,
                            headers: bearer + [("If-Match", etag)])
                        #expect(changed.status == 200)
                        #expect(
                            try await served.send(
                                .PATCH, "/api/items/\(id)", json: #"{"priority": 1}"#,
                                headers: bearer + [("If-Match", etag)]
                            ).status == 412)
                        let window = try await stream.next { ($0.json["count"] as? Int) == 1 }
                        #expect(window != nil)
                        let list = try await served.shelf.runAsync(["tokens", "list"])
                        #expect(list.output.hasPrefix("ann@example.com#1\tann@example.com\tread-write\t"))
                        #expect(try await served.shelf.runAsync(["tokens", "revoke", "ann@example.com#1"]).status == 0)
                        #expect(try await served.get("/api/items", headers: bearer).status == 401)
                    }
                }
            }
        #endif
    }
#endif
