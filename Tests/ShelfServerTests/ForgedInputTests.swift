#if Server
    import Foundation
    import NIOHTTP1
    import ShelfTestSupport
    import Synchronization
    import Testing

    /// Requests a hostile tester forged to crash or mislead the server: each is a 4xx that says
    /// why, and the server goes on answering.
    @Suite(.serialized) struct ForgedInputTests {
        /// A cursor with a time beyond Int64 milliseconds (1e300) trapped converting it and
        /// killed the server; now it is a 400, like any cursor the server did not give.
        @Test func aCursorWithAnOutOfRangeTimeIsA400() async throws {
            try await ServedShelf.with { served in
                _ = try await served.send(.POST, "/api/items", json: #"{"title": "a", "user": "ann@example.com"}"#)
                let forged = [
                    ("created", "desc", #""createdAt":1e300,"updatedAt":0"#),
                    ("updated", "desc", #""createdAt":0,"updatedAt":-1e300"#),
                    ("updated", "asc", #""createdAt":0,"updatedAt":1e300"#),
                    ("created", "asc", #""createdAt":-1e300,"updatedAt":0"#),
                ]
                for (sort, order, times) in forged {
                    let json =
                        #"{"sort":"\#(sort)","order":"\#(order)","position":{"id":1,\#(times),"#
                        + #""priority":0,"title":"a","ownerID":1}}"#
                    let cursor = Data(json.utf8).base64EncodedString()
                        .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                        .replacingOccurrences(of: "=", with: "")
                    let reply = try await served.get("/api/items?sort=\(sort)&order=\(order)&after=\(cursor)")
                    #expect(reply.status == 400, "\(times)")
                    #expect(reply.detail.contains("not a cursor this server gave"), "\(reply.detail)")
                    #expect(served.isRunning, "the server survived \(times)")
                }
                #expect(try await served.get("/healthz").status == 200)
            }
        }
        /// A page on another site POSTed `text/plain` (no CORS preflight) and the item was
        /// stored (201); a page whose name was rebound to 127.0.0.1 could read the store.
        @Test func otherSitesPagesCannotWriteOrRebindToRead() async throws {
            try await ServedShelf.with { served in
                let body = #"{"title": "x", "user": "ann@example.com"}"#
                let plain = try await served.send(
                    .POST, "/api/items", body: Array(body.utf8),
                    headers: [("Content-Type", "text/plain")])
                #expect(plain.status == 415)
                #expect(plain.detail.contains("Content-Type: application/json, not 'text/plain'"), "\(plain.detail)")
                let plainForeign = try await served.send(
                    .POST, "/api/items", body: Array(body.utf8),
                    headers: [("Content-Type", "text/plain"), ("Origin", "http://evil.example")])
                #expect(plainForeign.status == 403)
                let noType = try await served.send(.POST, "/api/items", body: Array(body.utf8))
                #expect(noType.status == 415)
                let foreign = try await served.send(
                    .POST, "/api/items", json: body, headers: [("Origin", "http://evil.example")])
                #expect(foreign.status == 403)
                #expect(foreign.detail.contains("Origin 'http://evil.example' may not change this store"))
                let delete = try await served.send(.DELETE, "/api/items/1", headers: [("Origin", "null")])
                #expect(delete.status == 403)
                #expect(try await served.get("/api/items").json["count"] as? Int == 0, "nothing was stored")
                let host = String(served.base.dropFirst("http://".count))
                let own = try await served.send(
                    .POST, "/api/items", json: body, headers: [("Origin", "http://" + host)])
                #expect(own.status == 201, "\(own.body)")
                let port = host.split(separator: ":").last.map(String.init) ?? ""
                let rebound = try await served.curl("/api/items", ["-H", "Host: evil.example:\(port)"])
                #expect(rebound.status == 403)
                #expect(rebound.body.contains("is not this server's address"), "\(rebound.body)")
                #expect(try await served.curl("/api/items", ["-H", "Host: localhost:\(port)"]).status == 200)
            }
        }

        /// With a token stored, the token protects the store and any `Host` may be used (a proxy).
        @Test func aTokenProtectedServerTakesAnyHost() async throws {
            let made = Mutex("")
            let prepare: (ServedShelfCLI) throws -> Void = { cli in
                let result = try cli.run(["tokens", "create", "--user", "ann@example.com"])
                made.withLock { $0 = result.output.trimmingCharacters(in: .newlines) }
            }
            try await ServedShelf.with(prepare: prepare) { (served: ServedShelf) async throws in
                let token = made.withLock { $0 }
                let port = served.base.split(separator: ":").last.map(String.init) ?? ""
                let reply = try await served.curl(
                    "/api/items", ["-H", "Host: shelf.example:\(port)", "-H", "Authorization: Bearer \(token)"])
                #expect(reply.status == 200, "\(reply.body)")
            }
        }
        /// `{}`, `{"priority":null}` and `{"user":null}` were 200s that bumped the version and
        /// updated_at; now a PATCH naming nothing, or null for a field that always has a value,
        /// is a 400, and one that repeats the item's values changes nothing.
        @Test func aPatchThatChangesNothingBumpsNothing() async throws {
            try await ServedShelf.with { served in
                let made = try await served.send(
                    .POST, "/api/items", json: #"{"title": "a", "user": "ann@example.com", "priority": 2}"#)
                let tag = try #require(made["ETag"])
                for body in ["{}", #"{"priority": null}"#, #"{"user": null}"#, #"{"status": null}"#] {
                    let reply = try await served.send(.PATCH, "/api/items/1", json: body, headers: [("If-Match", tag)])
                    #expect(reply.status == 400, "\(body)")
                    #expect(
                        reply.detail.contains(body == "{}" ? "names no field" : "cannot be null"), "\(reply.detail)")
                }
                let same = try await served.send(
                    .PATCH, "/api/items/1", json: #"{"title": "a", "priority": 2}"#, headers: [("If-Match", tag)])
                #expect(same.status == 200)
                #expect(same["ETag"] == tag)
                #expect(same.json["version"] as? Int == 1)
                #expect(same.json["updated_at"] as? String == made.json["updated_at"] as? String)
                let changed = try await served.send(
                    .PATCH, "/api/items/1", json: #"{"priority": 3}"#, headers: [("If-Match", tag)])
                #expect(changed.json["version"] as? Int == 2)
                let user = try await served.get("/api/users/1")
                let empty = try await served.send(
                    .PATCH, "/api/users/1", json: "{}", headers: [("If-Match", try #require(user["ETag"]))])
                #expect(empty.status == 400)
            }
        }
    }
#endif
