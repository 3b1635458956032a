#if PostgreSQL
    import Foundation
    import ShelfPostgres
    import ShelfPostgresTesting
    import ShelfStore
    import Testing

    /// The public face: `Store.open(postgres:)` and `Store.migrationStatus(postgres:)`.
    @Suite(.enabled(if: PostgresServer.url != nil)) struct PostgresStoreTests {
        @Test func migrationStatusGoesFromPendingToAppliedWithoutChangingAnything() async throws {
            try await Scratch.withDatabase { database in
                try await PostgresScratch.withPasswordUser(databaseURL: database) { url in
                    let before = try await Store.migrationStatus(postgres: url)
                    #expect(!before.isEmpty && before.allSatisfy { $0.state == .pending })
                    // Reading the status created nothing.
                    #expect(try await Store.migrationStatus(postgres: url) == before)
                    let store = try await Store.open(postgres: url)
                    #expect(store.appliedMigrations == before.map(\.name))
                    #expect(store.path == nil)
                    #expect(store.location.contains(":***@"))
                    #expect(!store.location.contains(try #require(try PostgresLocation(url: url).password)))
                    await store.close()
                    let after = try await Store.migrationStatus(postgres: url)
                    #expect(after.map(\.name) == before.map(\.name))
                    #expect(after.allSatisfy { if case .applied = $0.state { true } else { false } })
                }
            }
        }

        @Test func preferredTLSFallsBackToPlainConnections() async throws {
            try await Scratch.withDatabase { url in
                let store = try await Store.open(postgres: url + "?sslmode=prefer")
                #expect(try await store.users.users().isEmpty)
                await store.close()
            }
        }
    }
#endif
