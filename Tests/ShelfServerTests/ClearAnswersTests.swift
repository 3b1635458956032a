#if Server
    import Foundation
    import NIOHTTP1
    import ShelfTestSupport
    import Testing

    /// Requests a hostile tester got a misleading answer to: each now gets one that says what
    /// was wrong.
    @Suite(.serialized) struct ClearAnswersTests {
        /// `If-Match: 1` got "changed since: it is at version 1, If-Match named 1".
        @Test func anUnquotedIfMatchIsA400AboutQuoting() async throws {
            try await ServedShelf.with { served in
                _ = try await served.send(.POST, "/api/items", json: #"{"title": "a", "user": "ann@example.com"}"#)
                let reply = try await served.send(
                    .PATCH, "/api/items/1", json: #"{"title": "b"}"#, headers: [("If-Match", "1")])
                #expect(reply.status == 400)
                #expect(reply.detail.contains("If-Match must name ETags in double quotes"), "\(reply.detail)")
            }
        }

        /// `If-Match: W/"1"` changed an item at version 1: If-Match compares strongly (RFC 9110
        /// §13.1.1), and a weak tag never matches. On items and users, PATCH and DELETE alike;
        /// a strong tag beside it, and `*`, still match.
        @Test func aWeakIfMatchNeverMatches() async throws {
            try await ServedShelf.with { served in
                let item = try await served.send(
                    .POST, "/api/items", json: #"{"title": "a", "user": "ann@example.com"}"#)
                let user = try await served.send(
                    .POST, "/api/users", json: #"{"name": "Bo", "email": "bo@example.com"}"#)
                for (path, reply) in [("/api/items/1", item), ("/api/users/2", user)] {
                    let tag = try #require(reply["ETag"])
                    let body = path.contains("items") ? #"{"title": "b"}"# : #"{"name": "Bob"}"#
                    for method in [HTTPMethod.PATCH, .DELETE] {
                        let weak = try await served.send(
                            method, path, json: method == .PATCH ? body : nil, headers: [("If-Match", "W/\(tag)")])
                        #expect(weak.status == 412, "\(method) \(path) with W/\(tag): \(weak.status)")
                        #expect(weak.detail.contains("W/\(tag)"), "\(weak.detail)")
                    }
                    #expect(try await served.get(path)["ETag"] == tag, "\(path) was changed by a weak tag")
                    let listed = try await served.send(
                        .PATCH, path, json: body, headers: [("If-Match", "W/\(tag), \(tag)")])
                    #expect(listed.status == 200, "a strong tag beside a weak one matches")
                    let any = try await served.send(.PATCH, path, json: body, headers: [("If-Match", "*")])
                    #expect(any.status == 200, "* matches")
                }
            }
        }

        /// PUT and OPTIONS on a route's path were 404s, as if the path were wrong.
        @Test func anotherMethodOnARoutesPathIsA405WithAllow() async throws {
            try await ServedShelf.with { served in
                for (method, path, allow) in [
                    (HTTPMethod.PUT, "/api/items/1", "GET, HEAD, PATCH, DELETE"),
                    (.OPTIONS, "/api/items", "GET, HEAD, POST"), (.DELETE, "/healthz", "GET, HEAD"),
                    (.PUT, "/api/users/7", "GET, HEAD, PATCH, DELETE"), (.POST, "/api/changes", "GET, HEAD"),
                ] {
                    let reply = try await served.send(method, path)
                    #expect(reply.status == 405, "\(method) \(path)")
                    #expect(reply["Allow"] == allow)
                    #expect(reply.detail.contains("is not allowed on \(path)"))
                }
                #expect(try await served.send(.PUT, "/api/nothing").status == 404)
            }
        }

        /// Two Authorization headers: which token acts was the server's guess.
        @Test func twoAuthorizationHeadersAreA400() async throws {
            try await ServedShelf.with { served in
                let reply = try await served.get(
                    "/api/items", headers: [("Authorization", "Bearer a"), ("Authorization", "Bearer b")])
                #expect(reply.status == 400)
                #expect(reply.detail.contains("Authorization twice"), "\(reply.detail)")
            }
        }

        /// A declared `Content-Length: 2000000` with a few bytes sent waited for the rest; the
        /// 413 comes from the declared length, without the body.
        @Test func aDeclaredLengthOverTheLimitIsA413WithoutTheBody() async throws {
            try await ServedShelf.with { served in
                let answer = try await RawConnection.exchange(
                    served.base,
                    "POST /api/items HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                        + "Content-Length: 2000000\r\n\r\n{\"title\"", until: { $0.contains("send less") }
                ).text
                #expect(answer.hasPrefix("HTTP/1.1 413"), "\(answer)")
                #expect(answer.contains("Content-Length is 2000000"))
            }
        }
        /// A store whose file was deleted answered 500 to every request; now a 503 naming the
        /// file and what to do, and /healthz fails.
        @Test func aDeletedStoreIsA503SayingWhatToDo() async throws {
            try await ServedShelf.with { served in
                #expect(try await served.get("/api/items").status == 200)
                for suffix in ["", "-wal", "-shm"] { unlink(served.databasePath + suffix) }
                // A write is where the store notices the file is gone.
                let write = try await served.send(
                    .POST, "/api/items", json: #"{"title": "a", "user": "ann@example.com"}"#)
                #expect(write.status == 503, "\(write.body)")
                let reply = try await served.get("/api/items")
                #expect(reply.status == 503, "\(reply.body)")
                #expect(reply.detail.contains("was deleted or moved away"), "\(reply.detail)")
                #expect(reply.detail.contains("start again"))
                #expect(try await served.get("/healthz").status == 503)
            }
        }
    }
#endif
