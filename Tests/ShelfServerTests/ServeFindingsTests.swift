#if Server
    import Foundation
    import NIOHTTP1
    import ShelfTestSupport
    import Testing

    /// What a hostile tester found in `shelf serve` (issue 24).
    @Suite(.serialized) struct ServeFindingsTests {
        /// A DELETE with `If-Match` checked the version, then deleted by ID: a PATCH committed in
        /// between was acknowledged (200) and then deleted with the item (21 of 60 rounds on
        /// SQLite, 6 of 40 on PostgreSQL). The check is part of the DELETE now: of a PATCH and
        /// a DELETE sent from one read, never both succeed.
        static func aDeleteNeverRemovesAChangeItDidNotSee(_ served: ServedShelf) async throws {
            var both: [Int] = []
            for round in 0..<40 {
                let added = try await served.send(
                    .POST, "/api/items", json: #"{"title": "race \#(round)", "user": "ann@example.com"}"#)
                #expect(added.status == 201, "\(added.body)")
                let id = try #require(added.json["id"] as? Int)
                let etag = try #require(added["ETag"])
                async let patch = served.send(
                    .PATCH, "/api/items/\(id)", json: #"{"title": "patched \#(round)"}"#, headers: [("If-Match", etag)])
                async let delete = served.send(.DELETE, "/api/items/\(id)", headers: [("If-Match", etag)])
                let (patched, deleted) = try await (patch.status, delete.status)
                #expect([200, 412, 404].contains(patched) && [204, 412].contains(deleted), "\(patched) \(deleted)")
                if patched == 200 && deleted == 204 { both.append(id) }
                // What the server answered is what the store holds.
                let stored = try await served.get("/api/items/\(id)")
                #expect(stored.status == (deleted == 204 ? 404 : 200), "item \(id): \(stored.status)")
            }
            #expect(both.isEmpty, "a PATCH acknowledged, then deleted by a DELETE naming the version before: \(both)")
            // A new owner is a change too: a DELETE naming the version before it is a 412.
            let bob = try await served.send(
                .POST, "/api/users", json: #"{"name": "Bob", "email": "bob@example.com"}"#)
            #expect(bob.status == 201, "\(bob.body)")
            let added = try await served.send(
                .POST, "/api/items", json: #"{"title": "given", "user": "ann@example.com"}"#)
            let id = try #require(added.json["id"] as? Int)
            let etag = try #require(added["ETag"])
            let given = try await served.send(
                .PATCH, "/api/items/\(id)", json: #"{"user": "bob@example.com"}"#, headers: [("If-Match", etag)])
            #expect(given.status == 200, "\(given.body)")
            let stale = try await served.send(.DELETE, "/api/items/\(id)", headers: [("If-Match", etag)])
            #expect(stale.status == 412, "\(stale.body)")
            #expect(try await served.get("/api/items/\(id)").status == 200)
        }

        @Test func aDeleteNeverRemovesAChangeItDidNotSeeOnSQLite() async throws {
            try await ServedShelf.with { served in try await Self.aDeleteNeverRemovesAChangeItDidNotSee(served) }
        }

        /// `isLoopback` took any `Host` starting with `127.`: `127.evil.example` and
        /// `127.0.0.1.nip.io` (names DNS points anywhere) passed the DNS-rebinding guard.
        @Test func aNameThatOnlyLooksLikeALoopbackAddressIsRefused() async throws {
            try await ServedShelf.with { served in
                let port = served.base.split(separator: ":").last.map(String.init) ?? ""
                for host in [
                    "127.evil.example", "127.0.0.1.nip.io", "127.0.0.1.", "127.0.0.256", "127..0.1", "localhost.evil",
                ] {
                    let reply = try await served.curl("/api/items", ["-H", "Host: \(host):\(port)"])
                    #expect(reply.status == 403, "Host: \(host) -> \(reply.status)")
                    #expect(reply.body.contains("is not this server's address"), "\(reply.body)")
                }
                for host in ["127.0.0.1", "127.1.2.3", "localhost", "[::1]"] {
                    let reply = try await served.curl("/api/items", ["-H", "Host: \(host):\(port)"])
                    #expect(reply.status == 200, "Host: \(host) -> \(reply.status) \(reply.body)")
                }
                // Without the port too.
                #expect(try await served.curl("/api/items", ["-H", "Host: 127.0.0.1"]).status == 200)
                #expect(try await served.curl("/api/items", ["-H", "Host: 127.evil.example"]).status == 403)
            }
        }

        /// The same test decided whether `--host` is loopback: `--host 127.0.0.1.nip.io` served
        /// without a token.
        @Test func aHostNameThatOnlyLooksLikeLoopbackNeedsAToken() async throws {
            let folder = try TemporaryFolder()
            defer { folder.remove() }
            let cli = ServedShelfCLI(databasePath: folder.path("shelf.sqlite"), folder: folder)
            #expect(
                try await cli.runAsync(["users", "add", "--name", "Ann", "--email", "ann@example.com"]).status == 0)
            for host in ["127.0.0.1.nip.io", "127.evil.example"] {
                let refused = try await cli.runAsync(["serve", "--host", host, "--port", "0"])
                #expect(refused.status == 1)
                #expect(refused.error.contains("refusing to listen on \(host) with no API token"), "\(refused.error)")
            }
        }
    }
#endif

#if Server && PostgreSQL
    extension ServeFindingsTests {
        @Test(
            .enabled(
                if: PostgresChangeStreamTests.postgres != nil,
                "PostgreSQL server tests skipped: set SHELF_TEST_POSTGRES"))
        func aDeleteNeverRemovesAChangeItDidNotSeeOnPostgreSQL() async throws {
            try await PostgresChangeStreamTests.withServed { served, _ in
                try await Self.aDeleteNeverRemovesAChangeItDidNotSee(served)
            }
        }
    }
#endif

