#if PostgreSQL
    import Foundation
    import ShelfPostgresTesting
    import ShelfTestSupport
    import Testing

    /// What the `shelf` binary says of the repairs of a PostgreSQL store (postgres/0014): any
    /// command says on stderr what its open put right, and `shelf migrate` also compares the
    /// counts with the items group by group.
    @Suite(
        "shelf repairs on PostgreSQL (end to end)",
        .enabled(
            if: PostgresTestServer.url != nil,
            "PostgreSQL end-to-end tests skipped: set SHELF_TEST_POSTGRES to a server's URL"))
    struct PostgresRepairCommandTests {
        private static func psql(_ url: String, _ sql: String, in shelf: ShelfProcess) throws {
            let status = try ChildProcess(
                "/usr/bin/psql", [url, "-v", "ON_ERROR_STOP=1", "-qAtc", sql], environment: ["PATH": "/usr/bin:/bin"],
                stdout: "/dev/null"
            ).wait()
            #expect(status == 0, "psql: \(sql)")
        }

        /// An ID sequence set back by hand: the next add says what its open repaired and takes
        /// a new ID. A count moved between two groups (the totals still add up, so an open
        /// does not see it): `shelf migrate` finds and repairs it, then is up to date. Before
        /// 0014 the add failed with PostgreSQL's bare 23505 and migrate said "up to date".
        @Test func commandsSayWhatTheyRepairedAndMigrateComparesTheCountsInFull() async throws {
            let server = try #require(PostgresTestServer.url)
            try await PostgresScratch.withDatabase(serverURL: server) { url in
                let shelf = try ShelfProcess()
                defer { shelf.cleanUp() }
                #expect(try await shelf.run(["migrate", "--db", url]).status == 0)
                let user = try await shelf.run([
                    "users", "add", "--db", url, "--name", "Ann", "--email", "a@example.com",
                ])
                #expect(user.status == 0, "\(user.error)")
                for priority in 0..<3 {
                    let added = try await shelf.run([
                        "items", "add", "--db", url, "--user", "a@example.com", "--title", "item \(priority)",
                        "--priority", "\(priority)",
                    ])
                    #expect(added.status == 0, "\(added.error)")
                }

                try Self.psql(url, "SELECT setval('items_id_seq', 1)", in: shelf)
                let added = try await shelf.run([
                    "items", "add", "--db", url, "--user", "a@example.com", "--title", "after the setval",
                ])
                #expect(added.status == 0, "\(added.error)")
                #expect(
                    added.error.contains(
                        "shelf: repaired: moved the sequence of item IDs from 2 to 4 (the highest item ID ever used is 3)"
                    ),
                    "\(added.error)")

                try Self.psql(url, "SELECT shelf_fold_item_counts()", in: shelf)
                for (change, priority) in [("+ 1", 0), ("- 1", 1)] {
                    try Self.psql(
                        url, "UPDATE shelf_item_totals SET n = n \(change) WHERE kind = 'c' AND priority = \(priority)",
                        in: shelf)
                }
                let listed = try await shelf.run(["items", "list", "--db", url])
                #expect(listed.status == 0 && !listed.error.contains("repaired"), "\(listed.error)")
                let migrate = try await shelf.run(["migrate", "--db", url])
                #expect(migrate.status == 0, "\(migrate.error)")
                #expect(
                    migrate.output.contains(
                        "repaired: counted the items again (2 groups of the counts differed from the items)"),
                    "\(migrate.output)")
                let again = try await shelf.run(["migrate", "--db", url])
                #expect(again.output.contains("is up to date"), "\(again.output)")
            }
        }
    }
#endif
