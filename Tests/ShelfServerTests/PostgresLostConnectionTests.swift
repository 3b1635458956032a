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
    }
#endif
