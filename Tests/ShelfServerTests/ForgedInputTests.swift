#if Server
    import Foundation
    import NIOHTTP1
    import ShelfTestSupport
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
    }
#endif
