#if PostgreSQL
    import Foundation
    import PostgresNIO
    @testable import ShelfPostgres
    import ShelfPostgresTesting
    import ShelfStore
    import Testing

    /// Pages of plain lists are read through named prepared statements (`PreparedPages`).
    @Suite(.enabled(if: PostgresServer.url != nil)) struct PostgresPreparedPagesTests {
        /// postgres-nio remembers a failed preparation for the life of the connection: a page
        /// whose Parse waited past `lock_timeout` for a lock (a restore or another program's
        /// `LOCK TABLE`) would have failed on that connection for ever after, though the lock
        /// was gone. The failed name is retired and the next read prepares a new one.
        @Test func aPreparationThatWaitedPastTheLockTimeoutDoesNotFailLaterPages() async throws {
            try await Scratch.withDatabase { url in
                var configuration = Store.Configuration.default
                configuration.writeTimeout = .milliseconds(300)
                let store = try await PostgresBackend.open(url: url, configuration: configuration)
                do {
                    try await Self.readAfterALockTimeout(store, url: url)
                } catch {
                    await store.close()
                    throw error
                }
                await store.close()
            }
        }

        private static func readAfterALockTimeout(_ store: PostgresBackend, url: String) async throws {
            let owner = try await store.users.insert(NewUser(name: "Ann", email: "ann@example.com"))
            for index in 0..<60 {
                try await store.items.insert(NewItem(userID: owner, title: "item \(index)"))
            }
            // Every shape read here is new to this process, so its first read prepares it.
            let query = ItemQuery(sortField: .priority, sortDirection: .ascending)
            let first = try await store.items.items(matching: query, limit: 10)
            let cursor = ItemCursor(try #require(first.last))
            // Another session holds the table: every pooled connection's preparation of
            // the page after `cursor` waits for it, and ends at the lock timeout.
            let place = try PostgresLocation(url: url)
            try await PostgresBackend.withConnection(to: place) { holder in
                _ = try await holder.query("BEGIN", logger: .silent)
                _ = try await holder.query("LOCK TABLE items IN ACCESS EXCLUSIVE MODE", logger: .silent)
                let waiting = (0..<4).map { _ in
                    Task { () -> (any Error)? in
                        do {
                            _ = try await store.items.items(matching: query, after: cursor, limit: 10)
                            return nil
                        } catch {
                            return error
                        }
                    }
                }
                for call in waiting {
                    let outcome = await call.value
                    #expect(
                        StoreError.code(of: outcome ?? CancellationError()) == .busy, "\(String(describing: outcome))")
                }
                _ = try await holder.query("ROLLBACK", logger: .silent)
            }
            // The lock is gone: the page reads on every connection of the pool.
            let expected = Array(try await store.items.items(matching: query, limit: 20).dropFirst(10))
            try await withThrowingTaskGroup(of: [Item].self) { group in
                for _ in 0..<8 {
                    group.addTask { try await store.items.items(matching: query, after: cursor, limit: 10) }
                }
                for try await page in group { #expect(page == expected) }
            }
        }

        /// A search of lower-case ASCII words binds them as they are: `shelf_search_fold` is
        /// called (and planned, 0.15 ms a query) only for text it would change.
        @Test func searchTextThatIsItsOwnFoldIsNotFoldedByTheServer() throws {
            for (text, folded) in [("pia", false), ("pia -done2", false), ("Pia", true), ("café", true)] {
                let sql = try ItemQuery(text: text).postgresPage(cursor: nil, backward: false, limit: 50).sql
                #expect(sql.contains("shelf_search_fold") == folded, "\(text): \(sql)")
                #expect(sql.contains("to_tsquery('simple'"), "\(text): \(sql)")
            }
        }

        /// A shape named once is run by name on later reads, with the rows a fresh unnamed read
        /// returns; a text search is never named (its plan depends on the word).
        @Test func plainPagesAreNamedAndSearchesAreNot() async throws {
            #expect(PreparedPages.isPlanStable(ItemQuery()))
            #expect(PreparedPages.isPlanStable(ItemQuery(text: "status:open prio:3")))
            #expect(!PreparedPages.isPlanStable(ItemQuery(text: "pia")))
            #expect(!PreparedPages.isPlanStable(ItemQuery(text: "@ann")))
            #expect(!PreparedPages.isPlanStable(ItemQuery(text: "created:>7d")))
            #expect(!PreparedPages.isPlanStable(ItemQuery(owner: User.ID(1))))
            #expect(!PreparedPages.isPlanStable(ItemQuery(sortField: .owner)))
        }
    }
#endif
