#if Server
    import Foundation
    import NIOHTTP1
    import ShelfTestSupport
    import Testing

    /// `GET /api/items/live`: server-sent windows that follow every writer.
    @Suite(.serialized) struct LiveStreamTests {
        @Test func aStreamSeesTheCommandLineAndTheSQLiteShell() async throws {
            try await ServedShelf.with { served in
                let stream = try await EventStream(served, "/api/items/live?q=moth&limit=10")
                #expect(stream.status == 200)
                #expect(stream.contentType == "text/event-stream")
                let first = try #require(try await stream.next())
                #expect(first.event == "window")
                // Every event carries its change-log position as its id, and the same as "seq".
                let firstID = try #require(
                    first.id.flatMap { Int64($0) }, "an event id: \(String(describing: first.id))")
                #expect(first.json["count"] as? Int == 0)
                #expect((first.json["seq"] as? NSNumber)?.int64Value == firstID)

                let added = try await served.shelf.runAsync([
                    "items", "add", "--user", "ann@example.com", "--title", "Catch the moth",
                ])
                #expect(added.status == 0)
                let second = try await stream.next { ($0.json["count"] as? Int) == 1 }
                let items = try #require(second?.json["items"] as? [[String: Any]])
                let secondID = try #require(second?.id.flatMap { Int64($0) })
                #expect(secondID > firstID, "ids only increase")
                #expect(items.first?["title"] as? String == "Catch the moth")
                #expect(items.first?["user"] as? String == "ann@example.com")

                let inserted = try await served.cli(
                    sqlite: """
                        INSERT INTO items (user_id, title, status, priority, created_at, updated_at)
                        VALUES (1, 'Moth trap', 'open', 1, 1700000000000, 1700000000000)
                        """)
                #expect(inserted == 0)
                let third = try await stream.next { ($0.json["count"] as? Int) == 2 }
                let titles = (third?.json["items"] as? [[String: Any]])?.compactMap { $0["title"] as? String }
                #expect(Set(titles ?? []) == ["Catch the moth", "Moth trap"])
                #expect((third?.id.flatMap { Int64($0) } ?? 0) > secondID, "ids only increase")

                // A write that does not touch the window sends nothing: the next event is the
                // one after a matching write.
                _ = try await served.shelf.runAsync([
                    "items", "add", "--user", "ann@example.com", "--title", "Unrelated",
                ])
                _ = try await served.shelf.runAsync(["items", "add", "--user", "ann@example.com", "--title", "Moths"])
                let fourth = try #require(try await stream.next())
                #expect(fourth.json["count"] as? Int == 3)
            }
        }

        @Test func anIdleStreamSendsKeepAliveComments() async throws {
            try await ServedShelf.with(arguments: ["--keep-alive", "1"]) { served in
                let stream = try await EventStream(served, "/api/items/live")
                #expect(try await stream.next()?.event == "window")
                #expect(try await stream.waitForComments(2))
                #expect(stream.comments.allSatisfy { $0 == " keep-alive" })
                let metrics = try await served.get("/metrics")
                #expect(metrics.body.contains("shelf_live_streams 1"))
                #expect(metrics.body.contains("shelf_live_queries 1"))
            }
        }

        /// The keep-alive comment is for a quiet stream: one busy sending windows for more than
        /// two keep-alive intervals sends none (issue 24: it sent one every interval anyway),
        /// and once quiet for an interval it sends one.
        @Test func aBusyStreamSendsNoKeepAlive() async throws {
            let interval = Duration.seconds(6)
            try await ServedShelf.with(arguments: ["--keep-alive", "6"]) { served in
                let stream = try await EventStream(served, "/api/items/live?q=moth&limit=5")
                #expect(try await stream.next()?.event == "window")
                // Windows one after another for 13 s: the old schedule sent a comment at 6 s and
                // at 12 s whatever happened. The loop is bounded in time and count, and waits
                // for each window. The gaps between windows are kept: a machine so loaded (CI
                // beside other builds) that one window takes a whole interval makes the stream
                // quiet that long, and then a comment is due.
                let start = ContinuousClock.now
                var last = start
                var quietIntervals = 0
                var added = 0
                while ContinuousClock.now - start < .seconds(13), added < 5_000 {
                    added += 1
                    let reply = try await served.send(
                        .POST, "/api/items", json: #"{"title": "moth \#(added)", "user": "ann@example.com"}"#)
                    #expect(reply.status == 201)
                    let count = added
                    #expect(try await stream.next { ($0.json["count"] as? Int) == count } != nil)
                    let now = ContinuousClock.now
                    // A second of slack: the server's quiet time runs from its write, not from
                    // this read.
                    quietIntervals += Int((now - last + .seconds(1)) / interval)
                    last = now
                }
                let sent = stream.comments.count
                #expect(
                    sent <= quietIntervals, "\(sent) keep-alives while busy: \(added) windows, \(quietIntervals) quiet")
                // Quiet now: a keep-alive comes.
                let before = stream.comments.count
                #expect(try await stream.waitForComments(before + 1))
                #expect(stream.comments.allSatisfy { $0 == " keep-alive" })
            }
        }

        @Test func theParserFollowsTheEventSourceRules() {
            var parser = EventStreamParser()
            let events = parser.feed(
                Array("id: 7\r\nevent: window\r\ndata: a\rdata:b\n\n: note\n\ndata\n\nevent: x\n\n".utf8))
            #expect(
                events == [
                    ServerSentEvent(id: "7", event: "window", data: "a\nb"),
                    ServerSentEvent(id: "7", event: "message", data: ""),
                ])
            #expect(parser.comments == [" note"])
        }
    }
#endif
