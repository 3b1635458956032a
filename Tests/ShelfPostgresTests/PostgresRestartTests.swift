#if PostgreSQL
    import Foundation
    import ShelfPostgres
    import ShelfReactive
    import ShelfStore
    import ShelfTestSupport
    import Testing

    /// A server restart under an open store (on a cluster of the test's own): the store
    /// recovers on its own, and a live value misses nothing.
    @Suite(.enabled(if: PostgresServer.url != nil && ThrowawayCluster.binFolder != nil))
    struct PostgresRestartTests {
        @Test func aRestartUnderALiveValueMissesNothing() async throws {
            let cluster = try await onThread { try ThrowawayCluster() }
            defer { cluster.remove() }
            let store = try await PostgresBackend.open(url: cluster.url)
            let users = try await store.liveUsers()
            func seen() -> [String]? { (try? users.value.get())?.map(\.name) }
            _ = try await store.users.insert(NewUser(name: "Ann", email: "ann@example.com"))
            try await waitUntil("Ann is seen", limit: .seconds(120)) { seen() == ["Ann"] }

            try await onThread { try cluster.restart() }
            // The pool's connections and the listener's were ended: the next call is made
            // over a new connection, and the commit it makes while the listener is still
            // away is seen once it is back.
            _ = try await store.users.insert(NewUser(name: "Bob", email: "bob@example.com"))
            try await waitUntil("Bob is seen", limit: .seconds(180)) { seen() == ["Ann", "Bob"] }

            // And it listens on.
            _ = try await store.users.insert(NewUser(name: "Cy", email: "cy@example.com"))
            try await waitUntil("Cy is seen", limit: .seconds(120)) { seen() == ["Ann", "Bob", "Cy"] }
            // What the live value shows is what the restarted server holds, read afresh.
            #expect(try await store.users.users().map(\.name) == ["Ann", "Bob", "Cy"])
            #expect(seen() == ["Ann", "Bob", "Cy"])
            await store.close()
        }
    }
#endif
