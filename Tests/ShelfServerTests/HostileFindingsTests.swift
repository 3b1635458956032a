#if Server
    import Foundation
    import NIOHTTP1
    import ShelfTestSupport
    import Testing

    /// What a hostile tester found the API let through, each refused now with a 400 that says why.
    @Suite(.serialized) struct HostileFindingsTests {
        /// A time another program stored out of every date's range (Int64.max milliseconds, or
        /// 1e20 as a real) ended the whole server with a trap on the item's read, its list and
        /// its live window; it is served clamped, and the server stays up.
        @Test func aTimeOutOfRangeIsServedAndTheServerStaysUp() async throws {
            try await ServedShelf.with { served in
                let added = try await served.send(
                    .POST, "/api/items", json: #"{"title": "odd", "user": "ann@example.com"}"#)
                #expect(added.status == 201)
                let stream = try await EventStream(served, "/api/changes?after=0")
                #expect(
                    try await served.cli(
                        sqlite: "UPDATE items SET created_at = 9223372036854775807, updated_at = 1e20 WHERE id = 1")
                        == 0)
                #expect(try await stream.next() != nil, "the insert")
                #expect(try await stream.next() != nil, "the update, with its times")
                // A real in a time is refused rather than made up (as `items show` does): a 500
                // saying what is stored and how to correct it, not a 400 (the request was right).
                let one = try await served.get("/api/items/1")
                #expect(one.status == 500, "\(one.status) \(one.body)")
                #expect(one.detail.contains("updated_at") && one.detail.contains("sqlite3"), "\(one.detail)")
                // The list and a live window refuse it in the same words (they served it as read).
                let list = try await served.get("/api/items")
                #expect(list.status == 500 && list.detail == one.detail, "\(list.status) \(list.body)")
                let live = try await EventStream(served, "/api/items/live")
                let event = try await live.next()
                #expect(event?.event == "error" && event?.json["detail"] as? String == one.detail)
                // The out-of-range integer alone is served, clamped.
                #expect(try await served.cli(sqlite: "UPDATE items SET updated_at = 1700000000000 WHERE id = 1") == 0)
                #expect(try await served.get("/api/items").status == 200)
                #expect(try await live.next()?.event == "window")
                #expect(served.isRunning, "the server ended")
            }
        }

        /// A key given twice was taken (the last won): a proxy reading the first saw another body.
        @Test func aBodyWithAKeyTwiceIsRefusedNamingTheKey() async throws {
            try await ServedShelf.with { served in
                let twice = try await served.send(
                    .POST, "/api/items", json: #"{"title": "shown", "user": "ann@example.com", "title": "stored"}"#)
                #expect(twice.status == 400)
                #expect(twice.detail.contains("field 'title' is given twice"), "\(twice.detail)")
                let nested = try await served.send(
                    .POST, "/api/items",
                    json: #"{"title": "x", "user": "ann@example.com", "notes": null, "notes": "y"}"#)
                #expect(nested.status == 400)
                #expect(nested.detail.contains("'notes'"))
                #expect(try await served.get("/api/items").json["count"] as? Int == 0, "nothing was stored")
            }
        }

        /// `"\ud800"` gave the decoder's own message; now a problem that names the escape.
        @Test func aLoneSurrogateIsAClearProblem() async throws {
            try await ServedShelf.with { served in
                for body in [
                    #"{"title": "a\ud800", "user": "ann@example.com"}"#,
                    #"{"title": "\udc00b", "user": "ann@example.com"}"#,
                    #"{"title": "\ud800\u0041", "user": "ann@example.com"}"#,
                ] {
                    let reply = try await served.send(.POST, "/api/items", json: body)
                    #expect(reply.status == 400, "\(body)")
                    #expect(reply["Content-Type"] == "application/problem+json")
                    #expect(reply.detail.contains("surrogate pair with no other half"), "\(reply.detail)")
                    #expect(!reply.detail.contains("Unable to"), "no decoder wording: \(reply.detail)")
                }
                let pair = try await served.send(
                    .POST, "/api/items", json: #"{"title": "moth \ud83e\udd8b", "user": "ann@example.com"}"#)
                #expect(pair.status == 201)
                #expect(pair.json["title"] as? String == "moth 🦋")
            }
        }

        /// A page's `next` made under one sort, used under another, skipped and repeated items.
        @Test func aCursorOfOneSortIsRefusedUnderAnother() async throws {
            try await ServedShelf.with { served in
                for number in 1...4 {
                    _ = try await served.send(
                        .POST, "/api/items",
                        json: #"{"title": "Item \#(number)", "user": "ann@example.com", "priority": \#(number % 4)}"#)
                }
                let page = try await served.get("/api/items?sort=title&order=asc&limit=2")
                let next = try #require(page.json["next"] as? String)
                #expect(try await served.get("/api/items?sort=title&order=asc&limit=2&after=\(next)").status == 200)
                let otherSort = try await served.get("/api/items?sort=priority&order=asc&limit=2&after=\(next)")
                #expect(otherSort.status == 400)
                #expect(
                    otherSort.detail.contains(
                        "after is a cursor of sort=title&order=asc, not of this request's sort=priority&order=asc"),
                    "\(otherSort.detail)")
                let otherOrder = try await served.get("/api/items?sort=title&order=desc&limit=2&after=\(next)")
                #expect(otherOrder.status == 400)
                #expect(otherOrder.detail.contains("order=desc"))
            }
        }

        /// `q=%00` selected every item (a NUL separates words like punctuation); control
        /// characters in a query are a problem now, for the API and the command line alike.
        @Test func controlCharactersInAQueryAreRefused() async throws {
            try await ServedShelf.with { served in
                _ = try await served.send(.POST, "/api/items", json: #"{"title": "moth", "user": "ann@example.com"}"#)
                for query in ["%00", "a%01b", "%1B%5B2J", "%7F", "%C2%9B"] {
                    let reply = try await served.get("/api/items?q=\(query)")
                    #expect(reply.status == 400, "q=\(query)")
                    #expect(reply.detail.contains("a control character (U+"), "\(reply.detail)")
                    #expect(reply.detail.contains("cannot be searched"))
                    #expect(try await served.get("/api/items/live?q=\(query)").status == 400)
                }
                #expect(
                    try await served.get("/api/items?q=%00").detail.contains("column 1: a control character (U+0000)"))
                #expect(try await served.get("/api/items?q=moth%09trap").status == 200, "a tab is white space")
                let cli = try await served.shelf.runAsync(["items", "list", "--query", "a\u{1}b"])
                #expect(cli.status != 0, "the command line refuses it too")
                #expect(cli.error.contains("a control character (U+0001) cannot be searched"), "\(cli.error)")
            }
        }

        /// `limit=0` on a route that takes no limit was ignored; every route says which
        /// parameters it takes.
        @Test func parametersARouteDoesNotTakeAreRefused() async throws {
            try await ServedShelf.with { served in
                for path in [
                    "/api/views?limit=0", "/api/views?limit=-1", "/api/users/1?limit=99999", "/api/items/1?x=1",
                    // Silently taken before, as if they meant something (`?verbose` means nothing here).
                    "/healthz?x=1", "/metrics?x", "/healthz?verbose",
                ] {
                    let reply = try await served.get(path)
                    #expect(reply.status == 400, "\(path)")
                    #expect(reply.detail.contains("this route takes no parameters"), "\(reply.detail)")
                }
                for limit in ["0", "-5", "1001", "99999999999999999999"] {
                    #expect(try await served.get("/api/users?limit=\(limit)").status == 400)
                }
                #expect(try await served.get("/api/views").status == 200)
                #expect(try await served.get("/healthz").status == 200)
                #expect(try await served.get("/metrics").status == 200)
            }
        }
    }
#endif
