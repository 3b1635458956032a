#if Server
    import Foundation
    import NIOHTTP1
    import ShelfTestSupport
    import Synchronization
    import Testing

    /// Resume under fire (issue 24, "Prove it"): a live client cut off at random moments while
    /// writers run, each time reconnecting with `Last-Event-ID`, through the real binary.
    @Suite(.serialized) struct ResumeStormTests {
        /// 100 cuts by default (`SHELF_TEST_DISCONNECTS` sets another count): every event after a
        /// resume has a higher id than the last one the client saw (nothing it has is sent
        /// again), and once the writers stop its window equals a fresh read.
        @Test func aClientCutOffAtRandomMissesNothingAndItsIdsOnlyIncrease() async throws {
            let rounds = Int(ProcessInfo.processInfo.environment["SHELF_TEST_DISCONNECTS"] ?? "") ?? 100
            try await ServedShelf.with { served in
                let writing = Atomic<Bool>(true)
                let writer = Task {
                    var written = 0
                    while writing.load(ordering: .relaxed) {
                        written += 1
                        let reply = try await served.send(
                            .POST, "/api/items", json: #"{"title": "write \#(written)", "user": "ann@example.com"}"#)
                        guard reply.status == 201 else { throw ShellError(message: "POST: \(reply.status)") }
                        try await Task.sleep(for: .milliseconds(Int.random(in: 2...30)))
                    }
                    return written
                }
                var lastID: Int64?
                var window: ServerSentEvent?
                var resumedEvents = 0
                for round in 1...rounds {
                    // Cut after a random time, or sooner after a random number of events.
                    let cut = Duration.milliseconds(Int.random(in: 0...120))
                    let events = Int.random(in: 1...3)
                    let received = try await RawConnection.onThread { [base = served.base, lastID] in
                        try LiveSession.read(base, lastEventID: lastID, events: events, cutAfter: cut)
                    }
                    for event in received {
                        let id = try #require(event.id.flatMap { Int64($0) }, "round \(round): an event without an id")
                        if let lastID {
                            #expect(id > lastID, "round \(round): id \(id) after \(lastID): sent again or went back")
                            resumedEvents += 1
                        }
                        lastID = id
                        window = event
                    }
                }
                writing.store(false, ordering: .relaxed)
                let written = try await writer.value
                #expect(written > 0)
                #expect(resumedEvents > 0, "no event arrived on a resumed connection")

                // The writers have stopped: one last write, and the resumed client's window
                // follows it and equals a fresh read.
                let marker = try await served.send(
                    .POST, "/api/items", json: #"{"title": "the last write", "user": "ann@example.com"}"#)
                #expect(marker.status == 201)
                let last = try await RawConnection.onThread { [base = served.base, lastID] in
                    try LiveSession.read(
                        base, lastEventID: lastID, events: 10, cutAfter: .seconds(120),
                        until: { $0.data.contains("the last write") })
                }
                for event in last {
                    let id = try #require(event.id.flatMap { Int64($0) })
                    if let lastID { #expect(id > lastID, "the last resume: id \(id) after \(lastID)") }
                    lastID = id
                    window = event
                }
                let held = try #require(window.map { try LiveSession.json($0.data) })
                let fresh = try await served.get("/api/items?limit=5")
                #expect(held["count"] as? Int == fresh.json["count"] as? Int)
                let heldItems = (held["items"] as? [[String: Any]] ?? []).map {
                    "\($0["id"] ?? "")@\($0["version"] ?? "")"
                }
                let freshItems = (fresh.json["items"] as? [[String: Any]] ?? []).map {
                    "\($0["id"] ?? "")@\($0["version"] ?? "")"
                }
                #expect(heldItems == freshItems, "the window after \(rounds) cuts is not a fresh read")
                #expect(held["count"] as? Int == written + 1)
            }
        }
    }

    /// One live connection over a plain socket (HTTP/1.0, so the stream arrives raw), closed by
    /// the client at a moment of its choosing: the way a client vanishes mid-stream.
    enum LiveSession {
        /// Opens `/api/items/live?limit=5` with `lastEventID`, reads until `events` events have
        /// arrived, one satisfies `until`, or `cutAfter` has passed, then closes the connection
        /// and returns the events read. Blocking: call it on a thread of its own.
        static func read(
            _ base: String, lastEventID: Int64?, events: Int, cutAfter: Duration,
            until: (ServerSentEvent) -> Bool = { _ in false }
        ) throws -> [ServerSentEvent] {
            let connection = try RawConnection(base)
            let resume = lastEventID.map { "Last-Event-ID: \($0)\r\n" } ?? ""
            guard connection.send("GET /api/items/live?limit=5 HTTP/1.0\r\nHost: 127.0.0.1\r\n\(resume)\r\n") else {
                throw ShellError(message: "the server closed the connection before the request was sent")
            }
            let deadline = ContinuousClock.now + cutAfter
            var bytes: [UInt8] = []
            var headerEnd: Int?
            var parser = EventStreamParser()
            var received: [ServerSentEvent] = []
            while ContinuousClock.now < deadline, received.count < events {
                guard let chunk = connection.receiveAvailable() else { break }
                if chunk.isEmpty {
                    usleep(2_000)
                    continue
                }
                if headerEnd != nil {
                    received += parser.feed(chunk)
                } else {
                    bytes += chunk
                    if let end = bytes.firstRange(of: Array("\r\n\r\n".utf8))?.upperBound {
                        let head = String(decoding: bytes[..<end], as: UTF8.self)
                        guard head.hasPrefix("HTTP/1.0 200") else {
                            throw ShellError(message: "the live stream answered \(head.prefix(40))")
                        }
                        headerEnd = end
                        received += parser.feed(bytes[end...])
                    }
                }
                if received.contains(where: until) { break }
            }
            return received
        }

        static func json(_ data: String) throws -> [String: Any] {
            guard let object = try JSONSerialization.jsonObject(with: Data(data.utf8)) as? [String: Any] else {
                throw ShellError(message: "not a JSON object: \(data.prefix(80))")
            }
            return object
        }
    }
#endif
