#if Server
    import Foundation
    import NIOHTTP1
    import ShelfTestSupport
    import Synchronization
    import Testing

    /// What a token may do: read everything, write only its own user's items and user row
    /// (hostile tester: a token made items for, changed and deleted other users and their items).
    @Suite(.serialized) struct TokenScopeTests {
        /// The tokens made before the server starts.
        final class Tokens: Sendable {
            let made = Mutex<[String]>([])
            subscript(index: Int) -> String { made.withLock { $0[index] } }
            func add(_ result: ServedShelfCLI.Result) {
                made.withLock { $0.append(result.output.trimmingCharacters(in: .newlines)) }
            }
        }

        /// Bob and an item of his; a token `ann` for Ann.
        static func prepare(_ tokens: Tokens) -> (ServedShelfCLI) throws -> Void {
            { cli in
                _ = try cli.run(["users", "add", "--name", "Bob", "--email", "bob@example.com"])
                _ = try cli.run(["items", "add", "--user", "bob@example.com", "--title", "Bob's"])
                tokens.add(try cli.run(["tokens", "create", "--user", "ann@example.com", "--name", "ann"]))
            }
        }

        @Test func aTokenWritesOnlyItsOwnUsersItemsAndRow() async throws {
            let tokens = Tokens()
            try await ServedShelf.with(prepare: Self.prepare(tokens)) { served in
                let auth = [("Authorization", "Bearer \(tokens[0])")]
                // Reads: everything.
                let bobs = try await served.get("/api/items/1", headers: auth)
                #expect(bobs.status == 200)
                let bobsTag = try #require(bobs["ETag"])
                #expect(try await served.get("/api/users/2", headers: auth).status == 200)

                // Another user's items and row: 403, and nothing changes.
                let forBob = try await served.send(
                    .POST, "/api/items", json: #"{"title": "x", "user": "bob@example.com"}"#, headers: auth)
                #expect(forBob.status == 403)
                #expect(forBob.detail.contains("may not add an item for another user"), "\(forBob.detail)")
                let edit = try await served.send(
                    .PATCH, "/api/items/1", json: #"{"title": "mine now"}"#, headers: auth + [("If-Match", bobsTag)])
                #expect(edit.status == 403)
                let delete = try await served.send(.DELETE, "/api/items/1", headers: auth + [("If-Match", bobsTag)])
                #expect(delete.status == 403)
                let bob = try await served.get("/api/users/2", headers: auth)
                let renamed = try await served.send(
                    .PATCH, "/api/users/2", json: #"{"name": "Mallory"}"#,
                    headers: auth + [("If-Match", try #require(bob["ETag"]))])
                #expect(renamed.status == 403)
                #expect(
                    try await served.send(
                        .DELETE, "/api/users/2", headers: auth + [("If-Match", try #require(bob["ETag"]))]
                    ).status == 403)
                let newUser = try await served.send(
                    .POST, "/api/users", json: #"{"name": "Eve", "email": "eve@example.com"}"#, headers: auth)
                #expect(newUser.status == 403)
                #expect(try await served.get("/api/items/1", headers: auth).json["title"] as? String == "Bob's")
                #expect(try await served.get("/api/users", headers: auth).json["count"] as? Int == 2)

                // Its own: allowed; the owner may be left out, and may not be given away.
                let mine = try await served.send(.POST, "/api/items", json: #"{"title": "Ann's"}"#, headers: auth)
                #expect(mine.status == 201)
                #expect(mine.json["user"] as? String == "ann@example.com")
                let id = try #require(mine.json["id"] as? Int)
                let giveAway = try await served.send(
                    .PATCH, "/api/items/\(id)", json: #"{"user": "bob@example.com"}"#,
                    headers: auth + [("If-Match", try #require(mine["ETag"]))])
                #expect(giveAway.status == 403)
                let done = try await served.send(
                    .PATCH, "/api/items/\(id)", json: #"{"status": "done"}"#,
                    headers: auth + [("If-Match", try #require(mine["ETag"]))])
                #expect(done.status == 200)
                let ann = try await served.get("/api/users/1", headers: auth)
                let rename = try await served.send(
                    .PATCH, "/api/users/1", json: #"{"name": "Ann B"}"#,
                    headers: auth + [("If-Match", try #require(ann["ETag"]))])
                #expect(rename.status == 200)
            }
        }

        /// A live stream kept streaming after its token was revoked, or its user deleted; it
        /// ends now with a last `event: error` of status 401.
        @Test func aLiveStreamEndsWhenItsTokenIsRevokedOrItsUserDeleted() async throws {
            let tokens = Tokens()
            let prepare: (ServedShelfCLI) throws -> Void = { cli in
                try Self.prepare(tokens)(cli)
                tokens.add(try cli.run(["tokens", "create", "--user", "bob@example.com", "--name", "bob"]))
            }
            try await ServedShelf.with(prepare: prepare) { served in
                let (ann, bob) = (tokens[0], tokens[1])
                let revoked = try await EventStream(
                    served, "/api/items/live", headers: [("Authorization", "Bearer \(ann)")])
                let deleted = try await EventStream(
                    served, "/api/items/live", headers: [("Authorization", "Bearer \(bob)")])
                #expect(try await revoked.next()?.event == "window")
                #expect(try await deleted.next()?.event == "window")

                #expect(try await served.shelf.runAsync(["tokens", "revoke", "ann"]).status == 0)
                let last = try await revoked.next { $0.event == "error" }
                #expect(last?.json["status"] as? Int == 401)
                #expect((last?.json["detail"] as? String)?.contains("revoked") == true)
                #expect(try await revoked.next() == nil, "the stream ended")

                #expect(try await served.shelf.runAsync(["users", "remove", "bob@example.com"]).status == 0)
                #expect(try await deleted.next { $0.event == "error" }?.json["status"] as? Int == 401)
                #expect(try await deleted.next() == nil)
            }
        }
    }
#endif
