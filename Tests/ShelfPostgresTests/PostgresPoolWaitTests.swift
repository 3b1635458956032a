#if PostgreSQL
    import Foundation
    import PostgresNIO
    @testable import ShelfPostgres
    import ShelfPostgresTesting
    import ShelfStore
    import ShelfTestSupport
    import Synchronization
    import Testing

    /// Calls that wait for a connection of a busy pool share one check of the server, and end
    /// as busy after the pool's limit, instead of each opening connections of its own (a
    /// hostile tester saw one `shelf serve` hold 25–29 sessions for a pool of four, and its
    /// clients get 500s, as the server ran out of connections).
    @Suite(.enabled(if: PostgresServer.url != nil)) struct PostgresPoolWaitTests {
        @Test func callsWaitingOnABusyPoolShareOneCheckAndEndAsBusy() async throws {
            try await Scratch.withBackend { store, url in
                store.pool.leasePatience = .milliseconds(100)
                store.pool.leaseLimit = .seconds(2)
                let database = try PostgresLocation(url: url).database
                // Every connection of the pool sleeps 6 s.
                let sleepers = (0..<4).map { _ in
                    Task {
                        try await store.pool.read { connection in
                            _ = try await connection.query("SELECT 1 FROM pg_sleep(6)", logger: .silent).all(Int32.self)
                        }
                    }
                }
                // The sleepers hold every connection once four sessions sleep.
                var sleeping = 0
                for _ in 0..<200 where sleeping < 4 {
                    try await Task.sleep(for: .milliseconds(50))
                    sleeping = try await Self.count(
                        "SELECT count(*) FROM pg_stat_activity WHERE datname = '\(database)' AND wait_event = 'PgSleep'",
                        at: url)
                }
                try #require(sleeping == 4, "the pool's four connections never all slept")
                let checksBefore = store.pool.serverCheck.opened.load(ordering: .relaxed)
                let waiting = (0..<200).map { _ in
                    Task { () -> (any Error)? in
                        do {
                            _ = try await store.users.users()
                            return nil
                        } catch {
                            return error
                        }
                    }
                }
                // While they wait, the sessions of the database stay few: the pool's four, a
                // watcher each (`LockWait`), one check, this count, and the change feed.
                var most = 0
                for _ in 0..<10 {
                    try await Task.sleep(for: .milliseconds(150))
                    most = max(
                        most,
                        try await Self.count(
                            "SELECT count(*) FROM pg_stat_activity WHERE datname = '\(database)'", at: url))
                }
                #expect(most <= 12, "\(most) sessions while 200 calls waited")
                var outcomes: [(any Error)?] = []
                for call in waiting { outcomes.append(await call.value) }
                let checks = store.pool.serverCheck.opened.load(ordering: .relaxed) - checksBefore
                // One check a second at most (the verdict is kept for `fresh`): 200 calls that
                // each checked every 100 ms would have opened thousands.
                #expect(checks <= 12, "the waiting calls opened \(checks) checks")
                for outcome in outcomes {
                    let error = try #require(
                        outcome as? StoreError, "a call did not end as busy: \(String(describing: outcome))")
                    #expect(error.code == .busy)
                    #expect(error.isServerUnavailable)
                    #expect(error.message.contains("none of the 4 connections to the store"), "\(error.message)")
                    #expect(error.message.contains("nothing was read; retry in a moment"), "\(error.message)")
                }
                for sleeper in sleepers { try await sleeper.value }
                // And the pool serves again.
                #expect(try await store.users.users().isEmpty)
            }
        }

        /// A call that waits for the server check and is cancelled (it got its connection, or
        /// its caller went away) ends at once, not when the check ends: over a network that
        /// answers nothing, the check takes the connect timeout (10 s). And the check connects
        /// once: it took 20 s, as a connect that timed out was tried again with a new timeout
        /// (`KeepAlive`'s fallback for a channel closed before use).
        @Test func aCallWaitingForTheServerCheckEndsAtOnceWhenCancelled() async throws {
            try await Scratch.withDatabase { url in
                let proxy = try SilenceableProxy(to: try PostgresLocation(url: url).port)
                defer { proxy.close() }
                proxy.fallSilent()
                var components = try #require(URLComponents(string: url))
                components.port = proxy.port
                let check = ServerCheck(location: try PostgresLocation(url: try #require(components.string)))
                defer { check.close() }
                let waiter = Task { try await check.verdict() }
                let second = Task { (try await check.verdict(), ContinuousClock.now) }
                try await Task.sleep(for: .milliseconds(300))
                let cancelled = ContinuousClock.now
                waiter.cancel()
                let outcome = await waiter.result
                let ended = ContinuousClock.now
                let took = ended - cancelled
                #expect(throws: CancellationError.self) { try outcome.get() }
                #expect(took < .seconds(5), "the cancelled call waited \(took) for the check")
                #expect(check.opened.load(ordering: .relaxed) == 1, "the two calls shared one check")
                // The other call still gets the verdict: the server did not answer.
                let (verdict, answered) = try await second.value
                // Whatever the machine's load: the cancelled call ended before the check did.
                #expect(ended < answered, "the cancelled call ended \(ended - answered) after the check")
                #expect(proxy.accepted.load(ordering: .relaxed) == 1, "the check connected more than once")
                guard case .unreachable = verdict else {
                    Issue.record("a silent server was found \(verdict)")
                    return
                }
            }
        }

        /// A server that takes a connection and drops it while it starts (here: a listener that
        /// closes each connection it accepts) runs: the check says so (`full`, keep waiting),
        /// where it said `unreachable` and ended every waiting call at once.
        @Test func aConnectionDroppedWhileStartingIsNotAnUnreachableServer() async throws {
            let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) }
            }
            try #require(bound == 0 && listen(listener, 16) == 0)
            _ = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
            }
            let port = Int(UInt16(bigEndian: address.sin_port))
            // Its own thread, not the cooperative pool's: accept blocks.
            Thread.detachNewThread {
                while true {
                    let client = accept(listener, nil, nil)
                    guard client >= 0 else { return }
                    var buffer = [UInt8](repeating: 0, count: 64)
                    _ = read(client, &buffer, buffer.count)  // the startup message, then the drop
                    close(client)
                }
            }
            defer {
                shutdown(listener, Int32(SHUT_RDWR))
                close(listener)
            }
            let check = ServerCheck(location: try PostgresLocation(url: "postgres://shelf@127.0.0.1:\(port)/shelf"))
            defer { check.close() }
            let verdict = try await check.verdict()
            guard case .full(let error) = verdict else {
                Issue.record("a server that dropped the connection was found \(verdict)")
                return
            }
            #expect(error.message.contains("127.0.0.1:\(port)"), "\(error.message)")
        }

        /// A server with no connection left for the store, whose pool holds none of its own (its
        /// sessions ended), fails a call at the first check, not at the pool's limit: no
        /// connection of the pool can come free (hostile round 10: it waited the whole 30 s).
        /// The role's `CONNECTION LIMIT 0` stands for a server whose `max_connections` others took.
        @Test func aFullServerFailsACallAtOnceWhenThePoolHoldsNoConnection() async throws {
            try await Scratch.withDatabase { url in
                try await PostgresScratch.withPasswordUser(databaseURL: url) { roleURL in
                    let role = try PostgresLocation(url: roleURL).user
                    let store = try await PostgresBackend.open(url: roleURL)
                    store.pool.leasePatience = .milliseconds(300)
                    store.pool.leaseLimit = .seconds(60)
                    _ = try await store.items.count(matching: ItemQuery())
                    try await PostgresBackend.withConnection(to: try PostgresLocation(url: url)) { connection in
                        _ = try await connection.query(
                            PostgresQuery(unsafeSQL: "ALTER ROLE \(role) CONNECTION LIMIT 0"), logger: .silent)
                        _ = try await connection.query(
                            PostgresQuery(
                                unsafeSQL:
                                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = '\(role)'"),
                            logger: .silent)
                    }
                    try await Task.sleep(for: .milliseconds(500))
                    let started = ContinuousClock.now
                    let outcome: Result<Int, any Error>
                    do {
                        outcome = .success(try await store.items.count(matching: ItemQuery()))
                    } catch {
                        outcome = .failure(error)
                    }
                    let took = ContinuousClock.now - started
                    try await PostgresBackend.withConnection(to: try PostgresLocation(url: url)) { connection in
                        _ = try await connection.query(
                            PostgresQuery(unsafeSQL: "ALTER ROLE \(role) CONNECTION LIMIT -1"), logger: .silent)
                    }
                    await store.close()
                    guard case .failure(let error) = outcome else {
                        Issue.record("a count was read with no connection left: \(outcome)")
                        return
                    }
                    #expect("\(error)".contains("has no connection left"), "\(error)")
                    // Well under the pool's 60 s limit, which it waited out before.
                    #expect(took < .seconds(30), "the call waited \(took)")
                }
            }
        }

        private static func count(_ sql: String, at url: String) async throws -> Int {
            try await PostgresBackend.withConnection(to: try PostgresLocation(url: url)) { connection in
                try await connection.query(PostgresQuery(unsafeSQL: sql), logger: .silent).all(Int64.self).first
                    .map { Int($0) } ?? -1
            }
        }
    }
#endif
