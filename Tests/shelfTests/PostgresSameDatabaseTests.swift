#if PostgreSQL
    import Foundation
    import ShelfPostgres
    import ShelfPostgresTesting
    import ShelfTestSupport
    import Testing

    @Suite(
        "shelf copy onto the same PostgreSQL database by another name (end to end)",
        .enabled(
            if: PostgresTestServer.url != nil,
            "PostgreSQL end-to-end tests skipped: set SHELF_TEST_POSTGRES to a server's URL"))
    struct PostgresSameDatabaseTests {
        /// F12: two URLs that name one database by different host names (127.0.0.1 and
        /// localhost) and users (the server's and a non-superuser owner) are the same database:
        /// the copy refuses at once, rather than wait for its own lock and say "try again".
        @Test func aCopyOntoItselfUnderAnotherHostNameIsRefusedAtOnce() async throws {
            let server = try #require(PostgresTestServer.url)
            try await PostgresScratch.withDatabase(serverURL: server) { url in
                let shelf = try ShelfProcess()
                defer { shelf.cleanUp() }
                try await PostgresScratch.withPasswordUser(databaseURL: url) { owner in
                    var place = try PostgresLocation(url: owner)
                    #expect(place.host == "127.0.0.1", "the test needs a server named by its address: \(owner)")
                    place.host = "localhost"
                    let byName = PostgresScratch.url(of: place)
                    let source = shelf.databasePath
                    try await CopyFixture.make(source, shelf: shelf)
                    let there = try await shelf.run(["copy", source, byName])
                    #expect(there.status == 0, "\(there.error)")
                    // A short lock timeout: before the fix the copy waited for its own lock.
                    let quick = ["SHELF_WRITE_TIMEOUT_MS": "5000"]
                    for (from, to) in [(owner, byName), (url, byName), (byName, url)] {
                        let same = try await shelf.run(["copy", "--replace", from, to], environment: quick)
                        #expect(same.status == 1, "\(same.output)")
                        #expect(
                            same.error.contains("are the same database; copy into another one"), "\(same.error)")
                    }
                    let back = shelf.folder.appendingPathComponent("back.sqlite").path
                    #expect(try await shelf.run(["copy", byName, back]).status == 0)
                    #expect(try CopyFixture.dump(back) == CopyFixture.dump(source))
                }
            }
        }
    }
#endif
