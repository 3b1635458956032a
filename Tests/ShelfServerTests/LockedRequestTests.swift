#if Server && PostgreSQL
    import Foundation
    import NIOHTTP1
    import ShelfTestSupport
    import Testing

    /// A request whose database call waits for another session's lock until the request's
    /// limit (30 s) gets a 503 that names the session holding the lock and how to end it, as
    /// the lock timeout's message does; not "the server did not answer", which sent a reader
    /// to look at the network (the limit came in with hostile round 10's fix for silent
    /// networks, and answered a held lock that way).
    @Suite(.serialized) struct LockedRequestTests {
        @Test(.enabled(if: DepartedClientTests.enabled, "PostgreSQL server tests skipped: set SHELF_TEST_POSTGRES"))
        func aWriteWaitingForALockPastTheRequestsLimitNamesTheSessionHoldingIt() async throws {
            try await PostgresChangeStreamTests.withServed { served, url in
                let locker = try await DepartedClientTests.lockItems(url)
                let reply = try await served.send(
                    .POST, "/api/items", json: #"{"title": "Kite", "user": "ann@example.com"}"#)
                try await DepartedClientTests.unlock(url)
                locker.cancel()
                #expect(reply.status == 503, "\(reply.body)")
                #expect(reply["Retry-After"] == "1", "\(reply.headers)")
                let detail = reply.detail
                #expect(detail.contains("the session 'psql' (PID "), "\(detail)")
                #expect(detail.contains("holds a lock on the store"), "\(detail)")
                #expect(detail.contains("until the limit of 30 s"), "\(detail)")
                #expect(detail.contains("pg_terminate_backend"), "\(detail)")
                #expect(!detail.contains("did not answer"), "\(detail)")
                // The INSERT was sent: its cancel may reach the server after the lock is free.
                #expect(detail.contains("the write may or may not have been applied"), "\(detail)")
            }
        }
    }
#endif
