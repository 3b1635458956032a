#if Server
    import Foundation
    import NIOHTTP1
    import ShelfTestSupport
    import Synchronization
    import Testing

    /// Streams that join a query while its windows flow (issue 24). A query's fan-out hands
    /// each event loop the newest window in one job; a stream's response head is queued on its
    /// loop just before the stream joins, so a job queued before the join must not write to it:
    /// in a first version of the newest-only fan-out it did, and the window went out ahead of
    /// the response head (`shelf-benchmarks serve`'s shared run waited for ever for windows its
    /// clients could not read).
    @Suite(.serialized) struct LiveJoinTests {
        /// Set once, read from any thread.
        final class Flag: Sendable {
            private let raised = Atomic<Bool>(false)
            var isRaised: Bool { raised.load(ordering: .relaxed) }
            func raise() { raised.store(true, ordering: .relaxed) }
        }

        @Test func everyStreamThatJoinsWhileWindowsFlowStartsWithItsHead() async throws {
            try await ServedShelf.with { served in
                // Commits as fast as the server takes them, until the joins are done (bounded:
                // at most 5,000, and the joins' own bound in time).
                let done = Flag()
                async let commits = Self.commit(to: served, until: done)
                let base = served.base
                let bad = try await RawConnection.onThread { () -> [String] in
                    var open: [RawConnection] = []
                    var bad: [String] = []
                    let deadline = ContinuousClock.now + .seconds(120)
                    // Every stream stays open, so that each window's job writes to more of them
                    // (the longer a job, the likelier a join while one is queued).
                    for index in 0..<300 where ContinuousClock.now < deadline {
                        let connection = try RawConnection(base)
                        guard connection.send("GET /api/items/live?limit=5 HTTP/1.1\r\nHost: localhost\r\n\r\n")
                        else {
                            bad.append("stream \(index): the request could not be sent")
                            continue
                        }
                        let start = Self.firstWindow(connection, until: deadline)
                        if !start.starts(with: Array("HTTP/1.1 200 OK\r\n".utf8)) {
                            let text = String(decoding: start.prefix(80), as: UTF8.self)
                            bad.append("stream \(index) began \(text.debugDescription)")
                        }
                        open.append(connection)
                    }
                    return bad
                }
                done.raise()
                let made = try await commits
                // Windows flowed while the streams joined (a loaded machine commits only a few
                // times in the joins' seconds: 10 in a run beside other builds).
                #expect(made > 0, "commits while the streams joined: \(made)")
                #expect(bad.isEmpty, "\(bad.count) of 300 streams: \(bad.prefix(5).joined(separator: "; "))")
            }
        }

        /// Posts items until `done` (at most 5,000); how many it posted.
        private static func commit(to served: ServedShelf, until done: Flag) async throws -> Int {
            var added = 0
            while !done.isRaised, added < 5_000 {
                added += 1
                let reply = try await served.send(
                    .POST, "/api/items", json: #"{"title": "join \#(added)", "user": "ann@example.com"}"#)
                #expect(reply.status == 201)
            }
            return added
        }

        /// What `connection` received up to its first window's event (or the deadline, or the
        /// server's close): its first bytes tell whether the response head came first.
        private static func firstWindow(_ connection: RawConnection, until deadline: ContinuousClock.Instant)
            -> [UInt8]
        {
            let marker = Array("event: window".utf8)
            var received: [UInt8] = []
            while ContinuousClock.now < deadline {
                guard let more = connection.receiveAvailable() else { return received }
                if more.isEmpty {
                    usleep(1_000)
                    continue
                }
                received += more
                if received.count >= marker.count,
                    (0...(received.count - marker.count)).contains(where: {
                        received[$0..<($0 + marker.count)].elementsEqual(marker)
                    })
                {
                    return received
                }
            }
            return received
        }
    }
#endif
