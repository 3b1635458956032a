#if Server && PostgreSQL
    import Foundation
    import ShelfPostgresTesting
    import ShelfTestSupport
    import Testing

    /// A GET whose pooled connection the server ended (`pg_terminate_backend`) is read again on
    /// a fresh connection, or answered 503 with `Retry-After` saying the database connection
    /// was lost; never a bare 500.
    @Suite(.serialized) struct PostgresLostConnectionTests {
        @Test(.enabled(if: InstancesTests.postgres != nil, "PostgreSQL server tests skipped: set SHELF_TEST_POSTGRES"))
        func getsAnswerWhileTheServersBackendsAreTerminated() async throws {
            let prepare: (ServedShelfCLI) throws -> Void = { cli in
                _ = try cli.run(["items", "add", "--user", "ann@example.com", "--title", "Kite"])
            }
            try await PostgresChangeStreamTests.withServed(prepare: prepare) { served, url in
                // The server's pool names itself `shelf` (its change feed `shelf-change-feed`).
                let names = try await PostgresChangeStreamTests.psql(
                    url,
                    "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'shelf' AND datname = current_database()"
                )
                #expect(names.status == 0)
                var statuses: [Int] = []
                for round in 0..<30 {
                    let killed = try await PostgresChangeStreamTests.psql(
                        url,
                        "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                            + "WHERE application_name LIKE 'shelf%' AND datname = current_database() "
                            + "AND pid <> pg_backend_pid()")
                    #expect(killed.status == 0)
                    let path = ["/api/items", "/api/items/1", "/api/users", "/api/items?q=kite"][round % 4]
                    let reply = try await served.get(path)
                    statuses.append(reply.status)
                    if reply.status == 503 {
                        #expect(reply["Retry-After"] != nil, "\(path): \(reply.body)")
                        #expect(reply["Content-Type"] == "application/problem+json")
                        #expect(reply.detail.contains("database connection was lost"), "\(reply.detail)")
                    } else {
                        #expect(reply.status == 200, "\(path) answered \(reply.status): \(reply.body)")
                    }
                }
                #expect(!statuses.contains(500), "\(statuses)")
            }
        }

        /// The server's backend is terminated while the GET's query waits for a lock (held by a
        /// psql session for a moment): the read is tried again on a fresh connection and answers
        /// 200 once the lock goes. (It used to answer 500, "the connection ... was lost".)
        @Test(.enabled(if: InstancesTests.postgres != nil, "PostgreSQL server tests skipped: set SHELF_TEST_POSTGRES"))
        func aReadWhoseConnectionIsTerminatedInFlightIsReadAgain() async throws {
            let prepare: (ServedShelfCLI) throws -> Void = { cli in
                _ = try cli.run(["items", "add", "--user", "ann@example.com", "--title", "Kite"])
            }
            try await PostgresChangeStreamTests.withServed(prepare: prepare) { served, url in
                let locker = Task {
                    try await PostgresChangeStreamTests.psql(
                        url, "BEGIN; LOCK TABLE items IN ACCESS EXCLUSIVE MODE; SELECT pg_sleep(4); COMMIT;")
                }
                let locked = await ServedShelf.poll {
                    let check = try? ChildProcessRunner.psqlSync(
                        url,
                        "SELECT count(*) FROM pg_stat_activity WHERE wait_event = 'PgSleep' "
                            + "AND datname = current_database()")
                    return check == "1" ? true : nil
                }
                try #require(locked == true, "the psql session never took the lock")
                let reply = Task { try await served.get("/api/items/1") }
                // The server's query waits for the lock: end its session.
                let terminated = await ServedShelf.poll {
                    let killed = try? ChildProcessRunner.psqlSync(
                        url,
                        "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                            + "WHERE application_name = 'shelf' AND wait_event_type = 'Lock' "
                            + "AND datname = current_database()")
                    return killed == "1" ? true : nil
                }
                try #require(terminated == true, "the server's query never waited for the lock")
                let answer = try await reply.value
                #expect(answer.status == 200, "\(answer.body)")
                #expect(answer.json["title"] as? String == "Kite")
                #expect(try await locker.value.status == 0)
            }
        }
    }
#endif
