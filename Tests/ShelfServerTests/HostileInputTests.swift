#if Server
    import Foundation
    import NIOHTTP1
    import ShelfTestSupport
    import Testing

    /// Input no client should send: each gets a clear 4xx, and nothing is stored.
    @Suite(.serialized) struct HostileInputTests {
        @Test func badBodiesAre4xxAndStoreNothing() async throws {
            try await ServedShelf.with { served in
                let malformed = try await served.send(.POST, "/api/items", json: #"{"title": "x", "#)
                #expect(malformed.status == 400)
                #expect(malformed.detail.hasPrefix("the request body is not valid JSON"))
                #expect(try await served.send(.POST, "/api/items", json: "[1, 2]").status == 400)
                let unknown = try await served.send(
                    .POST, "/api/items", json: #"{"title": "x", "user": "ann@example.com", "colour": "red"}"#)
                #expect(unknown.status == 400)
                #expect(unknown.detail.hasPrefix("unknown field 'colour'"))
                let wrongType = try await served.send(
                    .POST, "/api/items", json: #"{"title": 5, "user": "ann@example.com"}"#)
                #expect(wrongType.status == 400)
                #expect(wrongType.detail == "field 'title' must be a string")
                let priority = try await served.send(
                    .POST, "/api/items", json: #"{"title": "x", "user": "ann@example.com", "priority": -1}"#)
                #expect(priority.status == 400)
                let huge = try await served.send(
                    .POST, "/api/items",
                    json: #"{"title": "x", "user": "ann@example.com", "priority": 99999999999999999999999}"#)
                #expect(huge.status == 400)
                // Invalid UTF-8 in a title.
                var bytes = Array(#"{"title": "caf"#.utf8) + [0xE9] + Array(#"", "user": "ann@example.com"}"#.utf8)
                let latin1 = try await served.send(
                    .POST, "/api/items", body: bytes, headers: [("Content-Type", "application/json")])
                #expect(latin1.status == 400)
                #expect(latin1.detail.contains("UTF-8"))
                // A NUL and other control characters: the store's rule, as on the command line.
                let nul = try await served.send(
                    .POST, "/api/items", json: #"{"title": "a\u0000b", "user": "ann@example.com"}"#)
                #expect(nul.status == 400)
                #expect(nul.detail.contains("NUL"))
                // 10 MB: refused before it is read whole, with the connection closed after the
                // answer (so curl, which reads an answer sent while it uploads; AsyncHTTPClient
                // reports the closed connection instead).
                bytes = Array(#"{"title": "x", "user": "ann@example.com", "notes": ""#.utf8)
                bytes += [UInt8](repeating: UInt8(ascii: "a"), count: 10_000_000) + Array(#""}"#.utf8)
                let file = served.folder.path("large.json")
                try Data(bytes).write(to: URL(fileURLWithPath: file))
                for chunked in [false, true] {
                    let large = try await served.curl(
                        "/api/items",
                        ["-H", "Content-Type: application/json", "--data-binary", "@" + file]
                            + (chunked ? ["-H", "Transfer-Encoding: chunked"] : []))
                    #expect(large.status == 413, "chunked: \(chunked)")
                    #expect(large.body.contains("larger than the server takes (1048576 bytes)"))
                }
                #expect(try await served.get("/api/items").json["count"] as? Int == 0, "nothing was stored")
                #expect(try await served.get("/healthz").status == 200, "the server still answers")
            }
        }

        @Test func badLimitsAndQueriesAre400s() async throws {
            try await ServedShelf.with { served in
                for limit in ["-1", "0", "1001", "99999999999999999999999", "ten", ""] {
                    let reply = try await served.get("/api/items?limit=\(limit)")
                    #expect(reply.status == 400, "limit=\(limit)")
                    #expect(reply.detail == "parameter 'limit' must be an integer from 1 to 1000")
                    #expect(try await served.get("/api/items/live?limit=\(limit)").status == 400)
                }
                let invalid = try await served.get("/api/items?q=caf%E9")
                #expect(invalid.status == 400)
                #expect(invalid.detail.contains("UTF-8"))
                // AsyncHTTPClient refuses to send a malformed escape; curl sends it as typed.
                let malformed = try await served.curl("/api/items?q=%ZZ")
                #expect(malformed.status == 400)
                #expect(malformed.body.contains("has a % not followed by two hex digits"))
                // Control characters in a query are a problem (HostileFindingsTests).
                let control = try await served.get("/api/items?q=a%01b%1B%5B2J")
                #expect(control.status == 400)
                #expect(try await served.get("/api/items?q=a&q=b").status == 400)
                // Headers past 80 KiB: refused, and the server goes on.
                let header = try await served.curl(
                    "/api/items", ["-H", "X-Big: " + String(repeating: "a", count: 100_000)])
                #expect(header.status == 400)
                #expect(try await served.get("/healthz").status == 200)
            }
        }
    }
#endif
