#if PostgreSQL
    import Foundation
    import ShelfPostgres
    import ShelfReactive
    import ShelfStore
    import ShelfTestSupport
    import Synchronization
    import Testing

    /// A network that falls silent (drops everything, closes nothing) under an open store:
    /// calls end, and live values say the connection is lost, within 30 s, not after the
    /// kernel's fifteen minutes or never. Simulated by `SilenceableProxy` between the store and
    /// the server; the limits below (45 s) only keep a broken build from hanging the suite.
    @Suite(.enabled(if: PostgresServer.url != nil)) struct PostgresSilentNetworkTests {
        /// `url` with its port replaced by the proxy's.
        private static func through(_ proxy: SilenceableProxy, _ url: String) throws -> String {
            var components = try #require(URLComponents(string: url))
            components.port = proxy.port
            return try #require(components.string)
        }

        /// A call on the pool's connection, sent after the network fell silent, fails saying
        /// the connection was lost.
        @Test func aCallOverASilentNetworkEnds() async throws {
            try await Scratch.withDatabase { url in
                let proxy = try SilenceableProxy(to: try PostgresLocation(url: url).port)
                let store = try await PostgresBackend.open(url: try Self.through(proxy, url))
                _ = try await store.items.count(matching: ItemQuery())
                proxy.fallSilent()
                let outcome = await Bounded.run(within: .seconds(45)) {
                    try await store.items.count(matching: ItemQuery())
                }
                proxy.close()
                await store.close()
                guard let outcome else {
                    Issue.record("the call was still waiting 45 s after the network fell silent")
                    return
                }
                #expect(throws: StoreError.self) { try outcome.get() }
                if case .failure(let error) = outcome {
                    #expect("\(error)".contains("was lost"), "\(error)")
                    #expect("\(error)".contains("127.0.0.1:\(proxy.port)"), "\(error)")
                }
            }
        }

        /// A pooled connection that a network dropped while it sat idle (as a firewall does
        /// to idle connections) is checked when leased after `idleCheckAfter`, found silent,
        /// and replaced: the call runs on a new connection instead of failing as lost (the
        /// pool has no keep-alive of its own).
        @Test func aConnectionDroppedWhileIdleIsReplacedBeforeACallUsesIt() async throws {
            try await Scratch.withDatabase { url in
                let proxy = try SilenceableProxy(to: try PostgresLocation(url: url).port)
                let store = try await PostgresBackend.open(url: try Self.through(proxy, url))
                store.pool.idleCheckAfter = .milliseconds(300)
                _ = try await store.items.count(matching: ItemQuery())
                let before = proxy.accepted.load(ordering: .relaxed)
                proxy.silenceConnectionsMadeSoFar()
                try await Task.sleep(for: .milliseconds(600))
                let outcome = await Bounded.run(within: .seconds(45)) {
                    try await store.items.count(matching: ItemQuery())
                }
                let after = proxy.accepted.load(ordering: .relaxed)
                proxy.close()
                await store.close()
                guard let outcome else {
                    Issue.record("the call was still waiting 45 s after the idle connection fell silent")
                    return
                }
                #expect(try outcome.get() == 0)
                #expect(after > before, "no new connection was made")
            }
        }

        /// A live value publishes the loss of its listening connection when the network falls
        /// silent while it is idle.
        @Test func aLiveValueNoticesASilentNetwork() async throws {
            try await Scratch.withDatabase { url in
                let proxy = try SilenceableProxy(to: try PostgresLocation(url: url).port)
                let store = try await PostgresBackend.open(url: try Self.through(proxy, url))
                let users = try await store.liveUsers()
                #expect(users.value == .success([]))
                proxy.fallSilent()
                var noticed = true
                do {
                    try await waitUntil("the loss is published", limit: .seconds(45)) {
                        users.value.failureValue != nil
                    }
                } catch {
                    noticed = false
                }
                proxy.close()
                await store.close()
                guard noticed else { return }
                let failure = try #require(users.value.failureValue)
                #expect(failure.message.contains("watches for changes was lost"), "\(failure)")
            }
        }
    }
#endif
