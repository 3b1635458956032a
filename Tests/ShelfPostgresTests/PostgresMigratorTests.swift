#if PostgreSQL
    import Foundation
    import ShelfPostgres
    import ShelfPostgresTesting
    import ShelfStore
    import Testing

    @Suite(.enabled(if: PostgresServer.url != nil)) struct PostgresMigratorTests {
        private static let names = PostgresMigrator.embedded.migrations.map(\.name)

        @Test func freshDatabaseGetsEveryMigrationThenReopensWithoutChange() async throws {
            try await Scratch.withDatabase { database in
                try await PostgresScratch.withPasswordUser(databaseURL: database) { url in
                    let first = try await PostgresBackend.open(url: url)
                    #expect(first.appliedMigrations == Self.names)
                    let password = try #require(try PostgresLocation(url: url).password)
                    #expect(!first.location.contains(password) && first.location.contains(":***@"))
                    await first.close()
                    let second = try await PostgresBackend.open(url: url)
                    #expect(second.appliedMigrations.isEmpty)
                    await second.close()
                    let recorded = try await Scratch.strings(
                        "SELECT name || ' ' || checksum FROM shelf_migrations ORDER BY name", at: url)
                    #expect(recorded == PostgresMigrator.embedded.migrations.map { "\($0.name) \($0.checksum)" })
                }
            }
        }

        @Test func newerDatabaseIsRefusedAndLeftUntouched() async throws {
            try await Scratch.withDatabase { url in
                try await PostgresBackend.open(url: url).close()
                try await Scratch.execute(
                    "INSERT INTO shelf_migrations VALUES ('9999_from_the_future', 'abc', 0)", at: url)
                let before = try await Self.schema(url)
                await #expect {
                    _ = try await PostgresBackend.open(url: url)
                } throws: { error in
                    StoreError.code(of: error) == .newerDatabase && "\(error)".contains("9999_from_the_future")
                }
                #expect(try await Self.schema(url) == before)
            }
        }

        @Test func editedMigrationIsRefused() async throws {
            try await Scratch.withDatabase { url in
                try await PostgresBackend.open(url: url).close()
                try await Scratch.execute(
                    "UPDATE shelf_migrations SET checksum = '0000000000000000' WHERE name = '\(Self.names[0])'",
                    at: url)
                let before = try await Self.schema(url)
                await #expect {
                    _ = try await PostgresBackend.open(url: url)
                } throws: { error in
                    StoreError.code(of: error) == .modifiedMigration
                        && "\(error)".contains("Migrations/postgres/\(Self.names[0]).sql")
                }
                #expect(try await Self.schema(url) == before)
            }
        }

        @Test func concurrentFirstOpensMigrateOnce() async throws {
            try await Scratch.withDatabase { url in
                let opened = try await withThrowingTaskGroup(of: [String].self) { group in
                    for _ in 0..<4 {
                        group.addTask {
                            let backend = try await PostgresBackend.open(url: url)
                            await backend.close()
                            return backend.appliedMigrations
                        }
                    }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
                // Each migration is applied once, by one of them; each runs in a transaction of its
                // own, so a second opener may apply the later ones after the first's earlier ones.
                #expect(opened.flatMap { $0 }.sorted() == Self.names)
                let recorded = try await Scratch.strings("SELECT name FROM shelf_migrations ORDER BY name", at: url)
                #expect(recorded == Self.names)
            }
        }

        @Test func someoneElsesDatabaseIsRefused() async throws {
            try await Scratch.withDatabase { url in
                try await Scratch.execute("CREATE TABLE invoices (id int)", at: url)
                await #expect {
                    _ = try await PostgresBackend.open(url: url)
                } throws: { error in
                    StoreError.code(of: error) == .foreignDatabase && "\(error)".contains("'invoices'")
                }
                #expect(
                    try await Scratch.strings("SELECT coalesce(to_regclass('shelf_migrations')::text, 'none')", at: url)
                        == ["none"])
            }
        }

        @Test func statusReportsPendingAppliedAndUnknown() async throws {
            try await Scratch.withDatabase { url in
                let place = try PostgresLocation(url: url)
                let pending = try await PostgresBackend.withConnection(to: place) { connection in
                    try await PostgresMigrator.embedded.status(on: connection)
                }
                #expect(pending.map(\.state) == Self.names.map { _ in .pending })
                try await PostgresBackend.open(url: url).close()
                try await Scratch.execute("INSERT INTO shelf_migrations VALUES ('9999_later', 'abc', 0)", at: url)
                let status = try await PostgresBackend.withConnection(to: place) { connection in
                    try await PostgresMigrator.embedded.status(on: connection)
                }
                #expect(status.last == .init(name: "9999_later", state: .unknown(Date(timeIntervalSince1970: 0))))
                #expect(status.dropLast().allSatisfy { if case .applied = $0.state { true } else { false } })
            }
        }

        /// The embedded SQL is the SQL of Migrations/postgres, byte for byte.
        @Test func embeddedMigrationsAreTheFiles() throws {
            let folder = URL(fileURLWithPath: #filePath)
                .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
                .appending(path: "Migrations/postgres")
            let files = try FileManager.default.contentsOfDirectory(atPath: folder.path)
                .filter { $0.hasSuffix(".sql") }.sorted()
            #expect(files.map { String($0.dropLast(4)) } == Self.names)
            for (file, migration) in zip(files, PostgresMigrator.embedded.migrations) {
                let sql = try String(contentsOf: folder.appending(path: file), encoding: .utf8)
                #expect(sql == migration.sql, "\(file) differs from the embedded SQL")
            }
        }

        /// Tables, columns, indexes and migration records, as text.
        private static func schema(_ url: String) async throws -> [String] {
            try await Scratch.strings(
                """
                SELECT 'column ' || table_name || '.' || column_name FROM information_schema.columns
                    WHERE table_schema = 'public'
                UNION ALL SELECT 'index ' || indexname FROM pg_indexes WHERE schemaname = 'public'
                UNION ALL SELECT 'migration ' || name || ' ' || checksum FROM shelf_migrations
                ORDER BY 1
                """, at: url)
        }
    }
#endif
