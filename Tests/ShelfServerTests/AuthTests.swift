#if Server
    import Foundation
    import NIOHTTP1
    import ShelfTestSupport
    import Synchronization
    import Testing

    /// API tokens: made and revoked on the command line, asked for by every /api request.
    @Suite(.serialized) struct AuthTests {
        @Test func onceATokenExistsEveryRequestNeedsOne() async throws {
            try await ServedShelf.with { served in
                #expect(try await served.get("/api/items").status == 200, "no token stored: open (on loopback)")
                let cli = served.shelf
                let made = try await cli.runAsync(["tokens", "create", "--user", "ann@example.com", "--name", "ci"])
                #expect(made.status == 0, "\(made.error)")
                let token = made.output.trimmingCharacters(in: .newlines)
                #expect(token.hasPrefix("shelf_"))
                let reader = try await cli.runAsync(["tokens", "create", "--user", "ann@example.com", "--read-only"])
                let readOnly = reader.output.trimmingCharacters(in: .newlines)
                let list = try await cli.runAsync(["tokens", "list"])
                #expect(list.output.contains("ci\tann@example.com\tread-write\t"))
                #expect(list.output.contains("ann@example.com#1\tann@example.com\tread-only\t"))
                #expect(!list.output.contains(token), "the token itself is not stored")
                let stored = try await cli.runAsync(["export", "users", "--format", "json"])
                #expect(!stored.output.contains(token))

                let without = try await served.get("/api/items")
                #expect(without.status == 401)
                #expect(without["WWW-Authenticate"] == "Bearer realm=\"shelf\"")
                #expect(try await served.get("/api/items", headers: [("Authorization", "Bearer nope")]).status == 401)
                #expect(
                    try await served.get("/api/items", headers: [("Authorization", "Bearer \(token)")]).status == 200)
                #expect(
                    try await served.get("/api/items", headers: [("Authorization", "Bearer \(readOnly)")]).status == 200
                )
                let write = #"{"title": "x", "user": "ann@example.com"}"#
                let forbidden = try await served.send(
                    .POST, "/api/items", json: write, headers: [("Authorization", "Bearer \(readOnly)")])
                #expect(forbidden.status == 403)
                #expect(
                    try await served.send(
                        .POST, "/api/items", json: write, headers: [("Authorization", "Bearer \(token)")]
                    )
                    .status == 201)
                #expect(try await served.get("/healthz").status == 200, "health needs no token")

                #expect(try await cli.runAsync(["tokens", "revoke", "ci"]).status == 0)
                #expect(
                    try await served.get("/api/items", headers: [("Authorization", "Bearer \(token)")]).status == 401)
                let again = try await cli.runAsync(["tokens", "revoke", "ci"])
                #expect(again.status == 1)
                #expect(again.error.contains("no token is named 'ci'"))
            }
        }

        /// A server on a host other machines reach stays closed when its last token is revoked
        /// (hostile tester: it answered anyone after `tokens revoke`).
        @Test func revokingTheLastTokenOfAServerOnTheNetworkClosesIt() async throws {
            let made = Mutex("")
            let prepare: (ServedShelfCLI) throws -> Void = { cli in
                let result = try cli.run(["tokens", "create", "--user", "ann@example.com", "--name", "only"])
                made.withLock { $0 = result.output.trimmingCharacters(in: .newlines) }
            }
            try await ServedShelf.with(arguments: ["--host", "0.0.0.0"], prepare: prepare) {
                (served: ServedShelf) async throws in
                let token = made.withLock { $0 }
                #expect(
                    try await served.get("/api/items", headers: [("Authorization", "Bearer \(token)")]).status == 200)
                #expect(try await served.shelf.runAsync(["tokens", "revoke", "only"]).status == 0)
                #expect(try await served.get("/api/items").status == 401, "no token stored, and still closed")
                let write = #"{"title": "anon", "user": "ann@example.com"}"#
                #expect(try await served.send(.POST, "/api/items", json: write).status == 401)
            }
        }

        @Test func aHostOtherThanLoopbackIsRefusedWithoutAToken() async throws {
            let folder = try TemporaryFolder()
            defer { folder.remove() }
            let cli = ServedShelfCLI(databasePath: folder.path("shelf.sqlite"), folder: folder)
            #expect(
                try await cli.runAsync(["users", "add", "--name", "Ann", "--email", "ann@example.com"]).status == 0)
            let refused = try await cli.runAsync(["serve", "--host", "0.0.0.0", "--port", "0"])
            #expect(refused.status == 1)
            #expect(refused.error.contains("refusing to listen on 0.0.0.0 with no API token"))
            #expect(refused.error.contains("shelf tokens create --db "), "\(refused.error)")
            #expect(refused.error.contains(" --user EMAIL"))
            #expect(refused.output.isEmpty)
        }
    }
#endif
