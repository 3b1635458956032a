#if Server && PostgreSQL
    import Foundation
    import ShelfPostgresTesting
    import ShelfTestSupport
    import Testing

    /// A request whose client has gone is cancelled: its database calls end (a queued one
    /// leaves the pool's queue, one waiting on the server is cancelled there) instead of
    /// holding the pool for no one. A client that only half-closes its side after sending its
    /// request still gets its answer.
    @Suite(.serialized) struct DepartedClientTests {
        static let enabled = InstancesTests.postgres != nil

        /// Holds `LOCK TABLE items` in a psql session until the returned task is cancelled (or
        /// 90 s), once the lock is held.
        static func lockItems(_ url: String) async throws -> Task<Void, any Error> {
            let locker = Task {
                _ = try await PostgresChangeStreamTests.psql(
                    url, "BEGIN; LOCK TABLE items IN ACCESS EXCLUSIVE MODE; SELECT pg_sleep(90); COMMIT;")
            }
            let locked = await ServedShelf.poll {
                let check = try? ChildProcessRunner.psqlSync(
                    url,
                    "SELECT count(*) FROM pg_stat_activity WHERE wait_event = 'PgSleep' AND datname = current_database()"
                )
                return check == "1" ? true : nil
            }
            try #require(locked == true, "the psql session never took the lock")
            return locker
        }

        /// Ends the psql session holding the lock.
        static func unlock(_ url: String) async throws {
            _ = try await PostgresChangeStreamTests.psql(
                url,
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE wait_event = 'PgSleep' "
                    + "AND datname = current_database()")
        }

        /// How many of the server's pooled sessions wait for a lock.
        static func waiting(_ url: String) -> Int {
            Int(
                (try? ChildProcessRunner.psqlSync(
                    url,
                    "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'shelf' "
                        + "AND wait_event_type = 'Lock' AND datname = current_database()")) ?? "") ?? 0
        }

        /// Hostile round 10: 200 clients that gave up (`curl --max-time 0.05`) made a fresh GET
        /// wait 24 s, their requests still running. Here 12 clients send `GET /api/items` while
        /// a psql session locks the items: the pool's 4 connections wait for the lock and the
        /// other requests wait for them; the clients close their connections. A fresh request
        /// then gets a connection at once (the departed ones' queries were cancelled), while the
        /// lock is still held; before, it waited the pool's 30 s and got a 503.
        @Test(.enabled(if: enabled, "PostgreSQL server tests skipped: set SHELF_TEST_POSTGRES"))
        func departedClientsRequestsAreCancelledAndAFreshOneIsServed() async throws {
            try await PostgresChangeStreamTests.withServed { served, url in
                let locker = try await Self.lockItems(url)
                let base = served.base
                var clients: [RawConnection]? = try await RawConnection.onThread {
                    try (0..<12).map { _ in
                        let connection = try RawConnection(base)
                        _ = connection.send("GET /api/items HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                        return connection
                    }
                }
                let full = await ServedShelf.poll { Self.waiting(url) >= 4 ? true : nil }
                #expect(full == true, "the server's pooled sessions never all waited for the lock")
                // The clients go: released, they close their sockets (their kernel sends the
                // connection's end).
                #expect(clients?.count == 12)
                clients = nil
                let start = ContinuousClock.now
                let fresh = try await served.get("/api/users")
                let elapsed = ContinuousClock.now - start
                try await Self.unlock(url)
                locker.cancel()
                #expect(fresh.status == 200, "\(fresh.body)")
                // The departed requests are logged as their clients' leaving, not as failures.
                let metrics = try await served.get("/metrics").body
                #expect(!metrics.contains("status=\"500\""), "\(metrics)")
                // Before: the pool's 30 s limit, then a 503. 20 s is far from both and leaves a
                // loaded machine its margin.
                #expect(elapsed < .seconds(20), "the fresh request took \(elapsed)")
            }
        }

        /// A client that closes its sending side after its request (HTTP/1.1 and HTTP/1.0)
        /// still gets the answer, although the server could not tell it from one that left:
        /// the HTTP/1.1 one gets an interim `100 Continue` first, which it passes over.
        @Test(.enabled(if: enabled, "PostgreSQL server tests skipped: set SHELF_TEST_POSTGRES"))
        func aHalfClosedClientStillGetsItsAnswer() async throws {
            let prepare: (ServedShelfCLI) throws -> Void = { cli in
                _ = try cli.run(["items", "add", "--user", "ann@example.com", "--title", "Kite"])
            }
            try await PostgresChangeStreamTests.withServed(prepare: prepare) { served, url in
                for version in ["HTTP/1.1", "HTTP/1.0"] {
                    // The answer waits for the lock, so the half-closure comes while it runs.
                    let locker = try await Self.lockItems(url)
                    let base = served.base
                    let answer = Task {
                        try await RawConnection.exchange(
                            base, "GET /api/items \(version)\r\nHost: 127.0.0.1\r\n\r\n", halfClose: true,
                            within: .seconds(120)
                        ).text
                    }
                    let waits = await ServedShelf.poll { Self.waiting(url) >= 1 ? true : nil }
                    #expect(waits == true, "\(version): the request never waited for the lock")
                    // Time for the end of its sending side to reach the server.
                    try await Task.sleep(for: .milliseconds(500))
                    try await Self.unlock(url)
                    locker.cancel()
                    let text = try await answer.value
                    #expect(text.contains(" 200 OK\r\n"), "\(version): \(text)")
                    #expect(text.contains("\"Kite\""), "\(version): \(text)")
                    // The interim answer that tells a client gone from a half-closed one; none
                    // to HTTP/1.0.
                    #expect(text.contains("100 Continue") == (version == "HTTP/1.1"), "\(version): \(text)")
                }
            }
        }
    }
#endif
